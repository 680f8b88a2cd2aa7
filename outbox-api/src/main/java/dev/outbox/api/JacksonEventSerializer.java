package dev.outbox.api;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import com.fasterxml.jackson.databind.exc.InvalidDefinitionException;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import java.io.File;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.Reader;
import java.io.Writer;
import java.nio.file.Path;
import java.util.Calendar;
import java.util.Date;
import java.util.Iterator;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.regex.Pattern;

/**
 * The default {@link EventSerializer}: Jackson with the modules found on the class path (java.time,
 * and Kotlin data classes when jackson-module-kotlin is present), dates as ISO-8601 text, unknown
 * properties ignored on the way back (older readers accept newer events).
 *
 * <p>Refused before anything is written, naming the field: NaN and infinities, unpaired surrogates
 * and {@code \u0000} in strings and keys, and types whose JSON form is not stable or not data:
 * {@code java.util.Date}/{@code Calendar} (time-zone dependent), {@code Optional} (use a nullable
 * field), byte arrays (encode them as text yourself, Base64 say), streams, readers, files and paths,
 * classes, threads, and objects whose state Jackson cannot see (no properties). A record with no
 * components is written as {@code {}}: it holds nothing that could be lost. Top-level scalars are
 * refused: a payload is a JSON object or array. {@code BigDecimal} keeps its scale ({@code 10.50}).
 */
public final class JacksonEventSerializer implements EventSerializer {

    private static final Pattern PLAIN_KEY = Pattern.compile("[A-Za-z_$][A-Za-z0-9_$]*");

    private final ObjectMapper mapper;

    private JacksonEventSerializer(ObjectMapper mapper) {
        this.mapper = mapper;
    }

    static JacksonEventSerializer create() {
        SimpleModule refusals = new SimpleModule("outbox-refusals");
        refuse(refusals, Date.class, "is a java.util.Date, whose JSON form depends on the time zone: use java.time.Instant");
        refuse(refusals, Calendar.class, "is a java.util.Calendar, whose JSON form depends on the time zone: use java.time types");
        refuse(refusals, Optional.class, "is an Optional, which has no stable JSON form: use a nullable field");
        refuse(refusals, OptionalInt.class, "is an OptionalInt, which has no stable JSON form: use a nullable field");
        refuse(refusals, OptionalLong.class, "is an OptionalLong, which has no stable JSON form: use a nullable field");
        refuse(refusals, OptionalDouble.class, "is an OptionalDouble, which has no stable JSON form: use a nullable field");
        refuse(refusals, Class.class, "is a Class, which is not data");
        refuse(refusals, Thread.class, "is a Thread, which is not data");
        refuse(refusals, InputStream.class, "is a stream, which is not data");
        refuse(refusals, OutputStream.class, "is a stream, which is not data");
        refuse(refusals, Reader.class, "is a reader, which is not data");
        refuse(refusals, Writer.class, "is a writer, which is not data");
        refuse(refusals, File.class, "is a File, which is not data");
        refuse(refusals, Path.class, "is a Path, which is not data");
        JsonMapper mapper = JsonMapper.builder()
                .findAndAddModules()
                .addModule(new JavaTimeModule())
                .addModule(refusals)
                .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
                .disable(SerializationFeature.WRITE_DURATIONS_AS_TIMESTAMPS)
                .enable(SerializationFeature.FAIL_ON_EMPTY_BEANS)
                .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .disable(DeserializationFeature.ADJUST_DATES_TO_CONTEXT_TIME_ZONE)
                .enable(MapperFeature.SORT_PROPERTIES_ALPHABETICALLY)
                // keep the scale of a BigDecimal (10.50 stays 10.50, 10 does not become 1E+1)
                .disable(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES)
                .build();
        return new JacksonEventSerializer(mapper);
    }

    /** A serializer over an {@link ObjectMapper} of your own; the checks of stored values still apply. */
    public static JacksonEventSerializer using(ObjectMapper mapper) {
        return new JacksonEventSerializer(mapper.copy());
    }

    @Override
    public String serialize(String eventType, Object event) {
        JsonNode tree;
        try {
            tree = mapper.valueToTree(event);
        } catch (IllegalArgumentException e) {
            JsonMappingException cause = findMappingException(e);
            String path = cause == null ? "$" : jsonPath(cause);
            String problem;
            if (cause != null && cause.getCause() instanceof RefusedType refused) {
                problem = refused.problem;
            } else if (cause instanceof InvalidDefinitionException d && d.getType() != null) {
                problem = "is a " + d.getType().getRawClass().getName() + ", which has no stable JSON form"
                        + " (a class with no properties, say: give it fields with getters, or make it a record)";
            } else {
                // Jackson's own words about the type; the class only when a getter of the event threw
                problem = "cannot be written as JSON (" + (cause == null ? e.getClass().getSimpleName()
                        : cause.getCause() == null ? cause.getOriginalMessage() : cause.getCause().getClass().getName()) + ")";
            }
            throw new EventEncodingException(eventType, path, problem, e);
        }
        if (!tree.isObject() && !tree.isArray()) {
            throw new EventEncodingException(eventType, "$", "must be a JSON object or array, got " + tree.getNodeType());
        }
        check(eventType, "$", tree);
        try {
            return mapper.writeValueAsString(tree);
        } catch (JsonProcessingException e) {
            throw new EventEncodingException(eventType, "$", "cannot be written as JSON", e);
        }
    }

    @Override
    public <T> T deserialize(String json, Class<T> type) {
        try {
            return mapper.readValue(json, type);
        } catch (JsonProcessingException e) {
            // the location and path only: the message of a parser may quote the payload
            String path = e instanceof JsonMappingException m ? jsonPath(m) : "$";
            throw new OutboxException("cannot read an event of class " + type.getName() + " at " + path + " ("
                    + e.getClass().getSimpleName() + ")", null);
        }
    }

    private static void check(String eventType, String path, JsonNode node) {
        if (node.isObject()) {
            Iterator<Map.Entry<String, JsonNode>> fields = node.fields();
            while (fields.hasNext()) {
                Map.Entry<String, JsonNode> field = fields.next();
                String childPath = path + segment(field.getKey());
                checkText(eventType, childPath, field.getKey(), "has a key that ");
                check(eventType, childPath, field.getValue());
            }
        } else if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                check(eventType, path + "[" + i + "]", node.get(i));
            }
        } else if (node.isDouble() || node.isFloat()) { // a BigDecimal beyond double's range is fine
            double value = node.doubleValue();
            if (Double.isNaN(value)) {
                throw new EventEncodingException(eventType, path, "is NaN, which JSON cannot hold");
            }
            if (Double.isInfinite(value)) {
                throw new EventEncodingException(eventType, path, "is infinite, which JSON cannot hold");
            }
        } else if (node.isTextual()) {
            checkText(eventType, path, node.textValue(), "");
        } else if (node.isPojo() || node.isBinary()) {
            throw new EventEncodingException(eventType, path, "has no JSON form (" + node.getNodeType() + ")");
        }
    }

    private static void checkText(String eventType, String path, String text, String what) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '\u0000') {
                throw new EventEncodingException(eventType, path, what + "contains \\u0000 at index " + i + ", which jsonb refuses");
            }
            if (Character.isHighSurrogate(c)) {
                if (i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
                    i++;
                    continue;
                }
                throw new EventEncodingException(eventType, path, what + "contains an unpaired surrogate at index " + i);
            }
            if (Character.isLowSurrogate(c)) {
                throw new EventEncodingException(eventType, path, what + "contains an unpaired surrogate at index " + i);
            }
        }
    }

    private static JsonMappingException findMappingException(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof JsonMappingException m) {
                return m;
            }
        }
        return null;
    }

    private static String jsonPath(JsonMappingException e) {
        StringBuilder path = new StringBuilder("$");
        for (JsonMappingException.Reference ref : e.getPath()) {
            if (ref.getFieldName() != null) {
                path.append(segment(ref.getFieldName()));
            } else if (ref.getIndex() >= 0) {
                path.append('[').append(ref.getIndex()).append(']');
            }
        }
        return path.toString();
    }

    /**
     * One step of a JSON path: {@code .name} for a plain name, {@code ['...']} otherwise, with
     * control characters, quotes, backslashes and surrogates escaped so the path prints safely.
     */
    static String segment(String key) {
        if (PLAIN_KEY.matcher(key).matches()) {
            return "." + key;
        }
        StringBuilder b = new StringBuilder("['");
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            if (c < 0x20 || c == 0x7F || c == '\'' || c == '\\' || Character.isSurrogate(c)) {
                b.append(String.format("\\u%04x", (int) c));
            } else {
                b.append(c);
            }
        }
        return b.append("']").toString();
    }

    private static <T> void refuse(SimpleModule module, Class<T> type, String problem) {
        module.addSerializer(type, new JsonSerializer<T>() {
            @Override
            public void serialize(T value, JsonGenerator gen, SerializerProvider serializers) throws java.io.IOException {
                throw JsonMappingException.from(gen, problem, new RefusedType(problem));
            }
        });
    }

    /** Marks a refusal of ours inside Jackson's exception chain. */
    private static final class RefusedType extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final String problem;

        RefusedType(String problem) {
            super(problem, null, false, false);
            this.problem = problem;
        }
    }
}
