package dev.outbox.delivery;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.util.ByteArrayBuilder;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.outbox.api.OutboxException;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * The job message a relay sends for one dispatch of a delivery and a worker reads: the wire
 * contract between them. Sent persistent, to the route's queue, with message id = dispatch id,
 * type = job type, content type {@value #CONTENT_TYPE}; the headers and the JSON body carry the same
 * ids. The body holds no event payload: the worker loads the event from the outbox tables.
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
public record DeliveryMessage(UUID eventId, UUID deliveryId, UUID dispatchId, String eventType, String jobType, int attempt,
        boolean lastAttempt, @Nullable String traceparent, @Nullable String tracestate) {

    public static final String CONTENT_TYPE = "application/json";
    public static final String HEADER_EVENT_ID = "outbox-event-id";
    public static final String HEADER_DELIVERY_ID = "outbox-delivery-id";
    public static final String HEADER_DISPATCH_ID = "outbox-dispatch-id";
    public static final String HEADER_EVENT_TYPE = "outbox-event-type";
    public static final String HEADER_JOB_TYPE = "outbox-job-type";
    public static final String HEADER_ATTEMPT = "outbox-attempt";
    public static final String HEADER_LAST_ATTEMPT = "outbox-last-attempt";
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

    /** The AMQP headers of this message (values are strings, numbers and booleans). */
    public Map<String, Object> headers() {
        Map<String, Object> h = new LinkedHashMap<>();
        h.put(HEADER_EVENT_ID, eventId.toString());
        h.put(HEADER_DELIVERY_ID, deliveryId.toString());
        h.put(HEADER_DISPATCH_ID, dispatchId.toString());
        h.put(HEADER_EVENT_TYPE, eventType);
        h.put(HEADER_JOB_TYPE, jobType);
        h.put(HEADER_ATTEMPT, attempt);
        h.put(HEADER_LAST_ATTEMPT, lastAttempt);
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
        // streamed, not built as a tree: one message per dispatch is on the relay's hot path
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

    /**
     * Reads a message body.
     *
     * @throws MalformedMessageException naming the field that is missing or wrong; the ids it could
     *     read are in the exception
     */
    public static DeliveryMessage fromJson(byte[] body) {
        JsonNode node;
        try {
            node = JSON.readTree(body);
        } catch (IOException e) {
            throw new MalformedMessageException("body is not JSON", null, null, null);
        }
        if (node == null || !node.isObject()) {
            throw new MalformedMessageException("body is not a JSON object", null, null, null);
        }
        UUID eventId = uuidOrNull(node, "eventId");
        UUID deliveryId = uuidOrNull(node, "deliveryId");
        UUID dispatchId = uuidOrNull(node, "dispatchId");
        for (String field : new String[] {"eventId", "deliveryId", "dispatchId"}) {
            if (uuidOrNull(node, field) == null) {
                throw new MalformedMessageException(field + " is missing or not a UUID", eventId, deliveryId, dispatchId);
            }
        }
        String eventType = textOrNull(node, "eventType");
        String jobType = textOrNull(node, "jobType");
        JsonNode attempt = node.get("attempt");
        JsonNode last = node.get("lastAttempt");
        if (eventType == null) {
            throw new MalformedMessageException("eventType is missing or not a string", eventId, deliveryId, dispatchId);
        }
        if (jobType == null) {
            throw new MalformedMessageException("jobType is missing or not a string", eventId, deliveryId, dispatchId);
        }
        if (attempt == null || !attempt.canConvertToInt() || !attempt.isIntegralNumber() || attempt.intValue() < 1) {
            throw new MalformedMessageException("attempt is missing or not a whole number >= 1", eventId, deliveryId, dispatchId);
        }
        if (last == null || !last.isBoolean()) {
            throw new MalformedMessageException("lastAttempt is missing or not a boolean", eventId, deliveryId, dispatchId);
        }
        return new DeliveryMessage(Objects.requireNonNull(eventId), Objects.requireNonNull(deliveryId), Objects.requireNonNull(dispatchId),
                eventType, jobType, attempt.intValue(), last.booleanValue(), textOrNull(node, "traceparent"), textOrNull(node, "tracestate"));
    }

    private static @Nullable UUID uuidOrNull(JsonNode node, String field) {
        String text = textOrNull(node, field);
        if (text == null || text.length() != 36) {
            return null;
        }
        try {
            return UUID.fromString(text);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    private static @Nullable String textOrNull(JsonNode node, String field) {
        JsonNode value = node.get(field);
        return value != null && value.isTextual() ? value.textValue() : null;
    }
}
