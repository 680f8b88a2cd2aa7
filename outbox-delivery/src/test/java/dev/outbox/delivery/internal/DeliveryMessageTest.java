package dev.outbox.delivery.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class DeliveryMessageTest {

    static final UUID EVENT = UUID.fromString("01890a5d-ac96-774b-bcce-b302099a8057");
    static final UUID DELIVERY = UUID.fromString("01890a5d-ac96-774b-bcce-b302099a8058");
    static final UUID DISPATCH = UUID.fromString("01890a5d-ac96-774b-bcce-b302099a8059");

    private static DeliveryMessage message() {
        return new DeliveryMessage(
                EVENT,
                DELIVERY,
                DISPATCH,
                "order.placed",
                "send-confirmation",
                2,
                true,
                "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
                "vendor=x");
    }

    @Test
    void roundTripsThroughItsJsonBody() {
        DeliveryMessage m = message();
        assertThat(DeliveryMessage.fromJson(m.toJson())).isEqualTo(m);
    }

    @Test
    void writesTheDocumentedBody() {
        DeliveryMessage m = new DeliveryMessage(
                EVENT, DELIVERY, DISPATCH, "order.\"placed\"", "send-confirmation", 1, false, null, "v=1");
        assertThat(new String(m.toJson(), StandardCharsets.UTF_8))
                .isEqualTo("{\"eventId\":\"" + EVENT + "\",\"deliveryId\":\"" + DELIVERY
                        + "\",\"dispatchId\":\"" + DISPATCH
                        + "\",\"eventType\":\"order.\\\"placed\\\"\",\"jobType\":\"send-confirmation\","
                        + "\"attempt\":1,\"lastAttempt\":false,\"tracestate\":\"v=1\"}");
    }

    @ParameterizedTest
    @MethodSource("bodies")
    void writesTheSameBytesAsJacksonWhetherOrNotAValueNeedsEscaping(
            String eventType, String jobType, String traceparent, String tracestate) throws Exception {
        DeliveryMessage m =
                new DeliveryMessage(EVENT, DELIVERY, DISPATCH, eventType, jobType, 12, false, traceparent, tracestate);
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put("eventId", EVENT.toString());
        fields.put("deliveryId", DELIVERY.toString());
        fields.put("dispatchId", DISPATCH.toString());
        fields.put("eventType", eventType);
        fields.put("jobType", jobType);
        fields.put("attempt", 12);
        fields.put("lastAttempt", false);
        if (traceparent != null) {
            fields.put("traceparent", traceparent);
        }
        if (tracestate != null) {
            fields.put("tracestate", tracestate);
        }

        assertThat(m.toJson()).isEqualTo(new ObjectMapper().writeValueAsBytes(fields));
        assertThat(DeliveryMessage.fromJson(m.toJson())).isEqualTo(m);
    }

    static Stream<Arguments> bodies() {
        return Stream.of(
                Arguments.of("order.placed", "send-confirmation", null, null),
                Arguments.of(
                        "a:b/c-d_e",
                        "job ~!@#$%^&*()",
                        "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
                        "v=1,w=2"),
                Arguments.of("order.placed", "back\\slash \"quoted\"", null, "tab\there"),
                Arguments.of("order.placed", "caf\u00e9 \u20ac \ud83d\ude00", null, "line\nbreak \u0001 \u007f"));
    }

    @Test
    void roundTripsWithoutTraceHeaders() {
        DeliveryMessage m = new DeliveryMessage(EVENT, DELIVERY, DISPATCH, "order.placed", "job", 1, false, null, null);
        assertThat(DeliveryMessage.fromJson(m.toJson())).isEqualTo(m);
        assertThat(new String(m.toJson(), StandardCharsets.UTF_8)).doesNotContain("trace");
    }

    @Test
    void carriesOnlyItsTraceContextInItsHeaders() {
        assertThat(message().traceHeaders())
                .containsExactly(
                        entry(
                                DeliveryMessage.HEADER_TRACEPARENT,
                                "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"),
                        entry(DeliveryMessage.HEADER_TRACESTATE, "vendor=x"));
    }

    @Test
    void isPublishedPersistentWithItsDispatchIdJobTypeAndTraceContext() {
        com.rabbitmq.client.AMQP.BasicProperties props = message().properties();
        assertThat(props.getDeliveryMode()).isEqualTo(2);
        assertThat(props.getMessageId()).isEqualTo(message().dispatchId().toString());
        assertThat(props.getType()).isEqualTo(message().jobType());
        assertThat(props.getContentType()).isEqualTo(DeliveryMessage.CONTENT_TYPE);
        assertThat(props.getHeaders()).isEqualTo(message().traceHeaders());
        assertThat(new DeliveryMessage(EVENT, DELIVERY, DISPATCH, "order.placed", "job", 1, false, null, null)
                        .properties()
                        .getHeaders())
                .isNull();
    }

    @Test
    void hasNoHeadersWithoutATraceContext() {
        assertThat(new DeliveryMessage(EVENT, DELIVERY, DISPATCH, "order.placed", "job", 1, false, null, null)
                        .traceHeaders())
                .isNull();
        assertThat(new DeliveryMessage(EVENT, DELIVERY, DISPATCH, "order.placed", "job", 1, false, null, "vendor=x")
                        .traceHeaders())
                .containsOnlyKeys(DeliveryMessage.HEADER_TRACESTATE);
    }

    @Test
    void readsABodyWithFieldsItDoesNotKnow() {
        String body = "{\"eventId\":\"" + EVENT + "\",\"deliveryId\":\"" + DELIVERY + "\",\"dispatchId\":\"" + DISPATCH
                + "\",\"eventType\":\"e\",\"jobType\":\"j\",\"attempt\":1,\"lastAttempt\":false,\"addedLater\":true}";
        assertThat(DeliveryMessage.fromJson(body.getBytes(StandardCharsets.UTF_8))
                        .jobType())
                .isEqualTo("j");
    }

    @Test
    void readsTheLastOfARepeatedFieldAndNeverAFieldOfANestedObject() {
        String body = "{\"jobType\":\"first\",\"other\":{\"eventId\":\"" + DISPATCH
                + "\",\"jobType\":\"nested\"},\"list\":[{\"a\":[1]}],"
                + "\"eventId\":\"" + EVENT + "\",\"deliveryId\":\"" + DELIVERY + "\",\"dispatchId\":\"" + DISPATCH
                + "\",\"eventType\":\"e\",\"jobType\":\"last\",\"attempt\":1,\"lastAttempt\":false}";
        DeliveryMessage m = DeliveryMessage.fromJson(body.getBytes(StandardCharsets.UTF_8));
        assertThat(m.jobType()).isEqualTo("last");
        assertThat(m.eventId()).isEqualTo(EVENT);
    }

    @Test
    void refusesABodyThatBreaksOffAfterItsFieldsAsNotJson() {
        String whole = new String(message().toJson(), StandardCharsets.UTF_8);
        String broken = whole.substring(0, whole.length() - 1) + ",";
        assertThatThrownBy(() -> DeliveryMessage.fromJson(broken.getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(MalformedMessageException.class)
                .hasMessageContaining("not JSON");
    }

    private static String body(String eventId, String deliveryId, String dispatchId, String rest) {
        return "{" + field("eventId", eventId) + field("deliveryId", deliveryId) + field("dispatchId", dispatchId)
                + rest + "}";
    }

    private static String field(String name, String value) {
        return value == null ? "" : "\"" + name + "\":" + value + ",";
    }

    private static String q(Object value) {
        return "\"" + value + "\"";
    }

    private static final String OK_REST = "\"eventType\":\"e\",\"jobType\":\"j\",\"attempt\":1,\"lastAttempt\":false";

    static Stream<Arguments> malformedBodies() {
        return Stream.of(
                Arguments.of("not JSON", "this is not json", "not JSON", null, null, null),
                Arguments.of("empty body", "", "not a JSON object", null, null, null),
                Arguments.of("not an object", "[1,2]", "not a JSON object", null, null, null),
                Arguments.of("a string", "\"text\"", "not a JSON object", null, null, null),
                Arguments.of(
                        "missing eventId",
                        body(null, q(DELIVERY), q(DISPATCH), OK_REST),
                        "eventId",
                        null,
                        DELIVERY,
                        DISPATCH),
                Arguments.of(
                        "eventId not a UUID",
                        body(q("nope"), q(DELIVERY), q(DISPATCH), OK_REST),
                        "eventId",
                        null,
                        DELIVERY,
                        DISPATCH),
                Arguments.of(
                        "eventId a number",
                        body("42", q(DELIVERY), q(DISPATCH), OK_REST),
                        "eventId",
                        null,
                        DELIVERY,
                        DISPATCH),
                Arguments.of(
                        "missing deliveryId",
                        body(q(EVENT), null, q(DISPATCH), OK_REST),
                        "deliveryId",
                        EVENT,
                        null,
                        DISPATCH),
                Arguments.of(
                        "short deliveryId",
                        body(q(EVENT), q("1-1-1-1-1"), q(DISPATCH), OK_REST),
                        "deliveryId",
                        EVENT,
                        null,
                        DISPATCH),
                Arguments.of(
                        "missing dispatchId",
                        body(q(EVENT), q(DELIVERY), null, OK_REST),
                        "dispatchId",
                        EVENT,
                        DELIVERY,
                        null),
                Arguments.of(
                        "missing eventType",
                        body(
                                q(EVENT),
                                q(DELIVERY),
                                q(DISPATCH),
                                "\"jobType\":\"j\",\"attempt\":1,\"lastAttempt\":false"),
                        "eventType",
                        EVENT,
                        DELIVERY,
                        DISPATCH),
                Arguments.of(
                        "missing jobType",
                        body(
                                q(EVENT),
                                q(DELIVERY),
                                q(DISPATCH),
                                "\"eventType\":\"e\",\"attempt\":1,\"lastAttempt\":false"),
                        "jobType",
                        EVENT,
                        DELIVERY,
                        DISPATCH),
                Arguments.of(
                        "jobType not a string",
                        body(
                                q(EVENT),
                                q(DELIVERY),
                                q(DISPATCH),
                                "\"eventType\":\"e\",\"jobType\":7,\"attempt\":1,\"lastAttempt\":false"),
                        "jobType",
                        EVENT,
                        DELIVERY,
                        DISPATCH),
                Arguments.of(
                        "missing attempt",
                        body(
                                q(EVENT),
                                q(DELIVERY),
                                q(DISPATCH),
                                "\"eventType\":\"e\",\"jobType\":\"j\",\"lastAttempt\":false"),
                        "attempt",
                        EVENT,
                        DELIVERY,
                        DISPATCH),
                Arguments.of(
                        "attempt zero",
                        body(
                                q(EVENT),
                                q(DELIVERY),
                                q(DISPATCH),
                                "\"eventType\":\"e\",\"jobType\":\"j\",\"attempt\":0,\"lastAttempt\":false"),
                        "attempt",
                        EVENT,
                        DELIVERY,
                        DISPATCH),
                Arguments.of(
                        "attempt fractional",
                        body(
                                q(EVENT),
                                q(DELIVERY),
                                q(DISPATCH),
                                "\"eventType\":\"e\",\"jobType\":\"j\",\"attempt\":1.5,\"lastAttempt\":false"),
                        "attempt",
                        EVENT,
                        DELIVERY,
                        DISPATCH),
                Arguments.of(
                        "attempt as text",
                        body(
                                q(EVENT),
                                q(DELIVERY),
                                q(DISPATCH),
                                "\"eventType\":\"e\",\"jobType\":\"j\",\"attempt\":\"1\",\"lastAttempt\":false"),
                        "attempt",
                        EVENT,
                        DELIVERY,
                        DISPATCH),
                Arguments.of(
                        "attempt too large",
                        body(
                                q(EVENT),
                                q(DELIVERY),
                                q(DISPATCH),
                                "\"eventType\":\"e\",\"jobType\":\"j\",\"attempt\":99999999999,\"lastAttempt\":false"),
                        "attempt",
                        EVENT,
                        DELIVERY,
                        DISPATCH),
                Arguments.of(
                        "missing lastAttempt",
                        body(q(EVENT), q(DELIVERY), q(DISPATCH), "\"eventType\":\"e\",\"jobType\":\"j\",\"attempt\":1"),
                        "lastAttempt",
                        EVENT,
                        DELIVERY,
                        DISPATCH),
                Arguments.of(
                        "lastAttempt as text",
                        body(
                                q(EVENT),
                                q(DELIVERY),
                                q(DISPATCH),
                                "\"eventType\":\"e\",\"jobType\":\"j\",\"attempt\":1,\"lastAttempt\":\"true\""),
                        "lastAttempt",
                        EVENT,
                        DELIVERY,
                        DISPATCH));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("malformedBodies")
    void refusesAMalformedBodyNamingTheFieldAndKeepingTheIdsItCouldRead(
            String what, String body, String problem, UUID eventId, UUID deliveryId, UUID dispatchId) {
        assertThatThrownBy(() -> DeliveryMessage.fromJson(body.getBytes(StandardCharsets.UTF_8)))
                .isInstanceOfSatisfying(MalformedMessageException.class, e -> {
                    assertThat(e.eventId()).isEqualTo(Optional.ofNullable(eventId));
                    assertThat(e.deliveryId()).isEqualTo(Optional.ofNullable(deliveryId));
                    assertThat(e.dispatchId()).isEqualTo(Optional.ofNullable(dispatchId));
                })
                .hasMessageStartingWith("malformed delivery message: ")
                .hasMessageContaining(problem);
    }

    @Test
    void refusesToBuildAMessageWithAttemptBelowOne() {
        assertThatThrownBy(() -> new DeliveryMessage(EVENT, DELIVERY, DISPATCH, "e", "j", 0, false, null, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("attempt");
    }
}
