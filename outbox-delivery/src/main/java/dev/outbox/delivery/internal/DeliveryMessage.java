package dev.outbox.delivery.internal;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.util.ByteArrayBuilder;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.rabbitmq.client.AMQP;
import dev.outbox.api.OutboxException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * The job message a relay sends for one dispatch of a delivery and a worker reads: the wire
 * contract between them. Sent persistent, to the route's queue, with message id = dispatch id,
 * type = job type, content type {@value #CONTENT_TYPE}; the JSON body carries the ids and the rest.
 * Its only AMQP headers are the W3C trace context, {@code traceparent} and {@code tracestate}, when
 * the event was recorded with them ({@link #traceHeaders}), where tracing tools look for it; a message
 * without a trace context has no header table, since the broker decodes every header of every
 * message. The body holds no event payload: the worker loads the event from the outbox tables.
 *
 * <pre>{"eventId":"…","deliveryId":"…","dispatchId":"…","eventType":"order.placed",
 *  "jobType":"send-confirmation","attempt":1,"lastAttempt":false}</pre>
 *
 * @param eventId the event
 * @param deliveryId the delivery
 * @param dispatchId this dispatch of the delivery; a result is accepted only for the current one
 * @param eventType the event's stable type name
 * @param jobType the route's job type
 * @param attempt the attempt number, from 1
 * @param lastAttempt true when a failure of this attempt will be final
 * @param traceparent the W3C traceparent recorded with the event, or null
 * @param tracestate the W3C tracestate recorded with the event, or null
 */
public record DeliveryMessage(
        UUID eventId,
        UUID deliveryId,
        UUID dispatchId,
        String eventType,
        String jobType,
        int attempt,
        boolean lastAttempt,
        @Nullable String traceparent,
        @Nullable String tracestate) {

    public static final String CONTENT_TYPE = "application/json";
    /** The headers of a publish route's message (its body is the event's payload), beside the trace context. */
    public static final String HEADER_EVENT_ID = "outbox-event-id";

    public static final String HEADER_DISPATCH_ID = "outbox-dispatch-id";
    public static final String HEADER_EVENT_TYPE = "outbox-event-type";
    /** The W3C trace context, in the headers of job and publish messages when the event was recorded with it. */
    public static final String HEADER_TRACEPARENT = "traceparent";

    public static final String HEADER_TRACESTATE = "tracestate";

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final JsonFactory JSON_FACTORY = JSON.getFactory();

    public DeliveryMessage {
        Objects.requireNonNull(eventId, "eventId");
        Objects.requireNonNull(deliveryId, "deliveryId");
        Objects.requireNonNull(dispatchId, "dispatchId");
        Objects.requireNonNull(eventType, "eventType");
        Objects.requireNonNull(jobType, "jobType");
        if (attempt < 1) {
            throw new IllegalArgumentException("attempt starts at 1, got " + attempt);
        }
    }

    /**
     * The AMQP properties this message is published with: persistent, message id = dispatch id,
     * type = job type, content type {@value #CONTENT_TYPE}, and the {@link #traceHeaders}.
     */
    public AMQP.BasicProperties properties() {
        return new AMQP.BasicProperties.Builder()
                .deliveryMode(2)
                .messageId(dispatchId.toString())
                .type(jobType)
                .contentType(CONTENT_TYPE)
                .headers(traceHeaders())
                .build();
    }

    /**
     * The AMQP headers of this message: {@code traceparent} and {@code tracestate} when it has them;
     * null (no header table) when it has neither.
     */
    public @Nullable Map<String, Object> traceHeaders() {
        if (traceparent == null && tracestate == null) {
            return null;
        }
        Map<String, Object> h = new LinkedHashMap<>();
        if (traceparent != null) {
            h.put(HEADER_TRACEPARENT, traceparent);
        }
        if (tracestate != null) {
            h.put(HEADER_TRACESTATE, tracestate);
        }
        return h;
    }

    /** The JSON body of this message. */
    public byte[] toJson() {
        // one message per dispatch is on the relay's hot path: values that need no escaping (ids, and
        // the type names, which are plain ASCII by their rules) are written directly, the rest streamed
        if (isPlain(eventType)
                && isPlain(jobType)
                && (traceparent == null || isPlain(traceparent))
                && (tracestate == null || isPlain(tracestate))) {
            return plainJson();
        }
        ByteArrayBuilder out = new ByteArrayBuilder(256);
        try (JsonGenerator g = JSON_FACTORY.createGenerator(out, JsonEncoding.UTF8)) {
            g.writeStartObject();
            g.writeStringField("eventId", eventId.toString());
            g.writeStringField("deliveryId", deliveryId.toString());
            g.writeStringField("dispatchId", dispatchId.toString());
            g.writeStringField("eventType", eventType);
            g.writeStringField("jobType", jobType);
            g.writeNumberField("attempt", attempt);
            g.writeBooleanField("lastAttempt", lastAttempt);
            if (traceparent != null) {
                g.writeStringField("traceparent", traceparent);
            }
            if (tracestate != null) {
                g.writeStringField("tracestate", tracestate);
            }
            g.writeEndObject();
        } catch (IOException e) {
            throw new OutboxException("cannot write a delivery message", e);
        }
        byte[] body = out.toByteArray();
        return body;
    }

    /** The body {@link #toJson} writes, when no value needs escaping: the same bytes as Jackson's generator. */
    private byte[] plainJson() {
        StringBuilder json = new StringBuilder(256)
                .append("{\"eventId\":\"")
                .append(eventId)
                .append("\",\"deliveryId\":\"")
                .append(deliveryId)
                .append("\",\"dispatchId\":\"")
                .append(dispatchId)
                .append("\",\"eventType\":\"")
                .append(eventType)
                .append("\",\"jobType\":\"")
                .append(jobType)
                .append("\",\"attempt\":")
                .append(attempt)
                .append(",\"lastAttempt\":")
                .append(lastAttempt);
        if (traceparent != null) {
            json.append(",\"traceparent\":\"").append(traceparent).append('"');
        }
        if (tracestate != null) {
            json.append(",\"tracestate\":\"").append(tracestate).append('"');
        }
        return json.append('}').toString().getBytes(StandardCharsets.US_ASCII);
    }

    /** Printable ASCII without {@code "} and {@code \\}: written into a JSON string as it is. */
    private static boolean isPlain(String value) {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c < 0x20 || c > 0x7e || c == '"' || c == '\\') {
                return false;
            }
        }
        return true;
    }

    /**
     * Reads a message body.
     *
     * @throws MalformedMessageException naming the field that is missing or wrong; the ids it could
     *     read are in the exception
     */
    public static DeliveryMessage fromJson(byte[] body) {
        // streamed, not read as a tree: one message per dispatch is on the worker's hot path; the
        // whole body is read before a field is judged, as a tree would be (the last of a repeated field counts)
        Fields f = new Fields();
        try (JsonParser p = JSON_FACTORY.createParser(body)) {
            JsonToken first = p.nextToken();
            if (first != JsonToken.START_OBJECT) {
                p.skipChildren(); // a malformed array is "not JSON", as a tree reads it
                throw new MalformedMessageException("body is not a JSON object", null, null, null);
            }
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                JsonToken value = p.nextToken();
                switch (name) {
                    case "eventId" -> f.eventId = text(p, value);
                    case "deliveryId" -> f.deliveryId = text(p, value);
                    case "dispatchId" -> f.dispatchId = text(p, value);
                    case "eventType" -> f.eventType = text(p, value);
                    case "jobType" -> f.jobType = text(p, value);
                    case "traceparent" -> f.traceparent = text(p, value);
                    case "tracestate" -> f.tracestate = text(p, value);
                    case "attempt" ->
                        f.attempt =
                                value == JsonToken.VALUE_NUMBER_INT && p.getNumberType() == JsonParser.NumberType.INT
                                        ? p.getIntValue()
                                        : 0;
                    case "lastAttempt" ->
                        f.lastAttempt = value == JsonToken.VALUE_TRUE
                                ? Boolean.TRUE
                                : value == JsonToken.VALUE_FALSE ? Boolean.FALSE : null;
                    default -> p.skipChildren();
                }
                if (value == JsonToken.START_OBJECT || value == JsonToken.START_ARRAY) {
                    p.skipChildren(); // a known field with an object or array value: read past it, it is not valid
                }
            }
            if (p.currentToken() != JsonToken.END_OBJECT) {
                throw new MalformedMessageException("body is not JSON", null, null, null);
            }
        } catch (IOException e) {
            throw new MalformedMessageException("body is not JSON", null, null, null);
        }
        UUID eventId = uuidOrNull(f.eventId);
        UUID deliveryId = uuidOrNull(f.deliveryId);
        UUID dispatchId = uuidOrNull(f.dispatchId);
        if (eventId == null) {
            throw new MalformedMessageException("eventId is missing or not a UUID", null, deliveryId, dispatchId);
        }
        if (deliveryId == null) {
            throw new MalformedMessageException("deliveryId is missing or not a UUID", eventId, null, dispatchId);
        }
        if (dispatchId == null) {
            throw new MalformedMessageException("dispatchId is missing or not a UUID", eventId, deliveryId, null);
        }
        if (f.eventType == null) {
            throw new MalformedMessageException(
                    "eventType is missing or not a string", eventId, deliveryId, dispatchId);
        }
        if (f.jobType == null) {
            throw new MalformedMessageException("jobType is missing or not a string", eventId, deliveryId, dispatchId);
        }
        if (f.attempt < 1) {
            throw new MalformedMessageException(
                    "attempt is missing or not a whole number >= 1", eventId, deliveryId, dispatchId);
        }
        if (f.lastAttempt == null) {
            throw new MalformedMessageException(
                    "lastAttempt is missing or not a boolean", eventId, deliveryId, dispatchId);
        }
        return new DeliveryMessage(
                eventId,
                deliveryId,
                dispatchId,
                f.eventType,
                f.jobType,
                f.attempt,
                f.lastAttempt,
                f.traceparent,
                f.tracestate);
    }

    /** The fields of a body as {@link #fromJson} reads them, before they are judged. */
    private static final class Fields {
        @Nullable
        String eventId;

        @Nullable
        String deliveryId;

        @Nullable
        String dispatchId;

        @Nullable
        String eventType;

        @Nullable
        String jobType;

        @Nullable
        String traceparent;

        @Nullable
        String tracestate;

        int attempt;

        @Nullable
        Boolean lastAttempt;
    }

    private static @Nullable String text(JsonParser p, JsonToken value) throws IOException {
        return value == JsonToken.VALUE_STRING ? p.getText() : null;
    }

    private static @Nullable UUID uuidOrNull(@Nullable String text) {
        if (text == null || text.length() != 36) {
            return null;
        }
        try {
            return UUID.fromString(text);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}
