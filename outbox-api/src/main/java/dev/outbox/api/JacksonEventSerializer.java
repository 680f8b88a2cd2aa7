package dev.outbox.api;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.Module;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import com.fasterxml.jackson.databind.exc.InvalidDefinitionException;
import com.fasterxml.jackson.databind.exc.InvalidNullException;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.Reader;
import java.io.StringWriter;
import java.io.Writer;
import java.nio.file.Path;
import java.util.Calendar;
import java.util.Date;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The default {@link EventSerializer}: Jackson with the modules found on the class path (java.time,
 * and Kotlin data classes when jackson-module-kotlin is present), dates as ISO-8601 text.
 *
 * <p><b>Writing.</b> Refused before anything is written, naming the field: NaN and infinities,
 * unpaired surrogates and {@code \u0000} in strings and keys, and types whose JSON form is not stable
 * or not data: {@code java.util.Date}/{@code Calendar} (time-zone dependent), {@code Optional} (use a
 * nullable field), byte arrays (encode them as text yourself, Base64 say), streams, readers, files
 * and paths, classes, threads, raw JSON, and objects whose state Jackson cannot see (no properties).
 * A record with no components is written as {@code {}}: it holds nothing that could be lost.
 * Top-level scalars are refused: a payload is a JSON object or array. {@code BigDecimal} keeps its
 * scale ({@code 10.50}).
 *
 * <p><b>What is recorded can be read.</b> The read limits of the mapper's
 * {@link StreamReadConstraints} (Jackson's defaults: strings up to 20,000,000 characters, numbers up
 * to 1,000 digits, keys up to 50,000 characters, nesting up to 1,000 levels) are checked when the
 * event is written, with the same object the reading side uses, so a worker with the same serializer
 * can always read what {@code record} accepted. Numbers are counted as PostgreSQL prints them back
 * from {@code jsonb}: every digit in plain notation ({@code 1E+1000} comes back as 1,001 digits) and
 * within the range of {@code numeric}. A payload holds at most {@link #MAX_PAYLOAD_BYTES} bytes of
 * JSON. (The document length and token count limits, unlimited by default, are not checked.) An
 * event that holds a {@code null} is read back into its class when it is written: a {@code null}
 * that the reading rules below refuse ({@code $.name} of a {@code @NullMarked} record without
 * {@code @Nullable}, {@code $.tags[1]} of a Kotlin {@code List<String>}) is refused at
 * {@code record}, naming its path.
 *
 * <p><b>Paths.</b> An {@link EventEncodingException} names the field by its JSON path. Property names
 * of records and beans are printed ({@code $.lines[2].price}); the keys of a {@code Map} (or a
 * {@code JsonNode}) are payload data and are named by position instead: {@code $.labels.<key #3>} is
 * the fourth entry written.
 *
 * <p><b>Reading.</b> Unknown properties are ignored (a newer producer may add fields). A missing
 * property is an error, failing the delivery {@code undeserializable_event} instead of running the
 * handler with a made-up value, when it is: a primitive ({@code int}, {@code long}, {@code boolean}
 * ...; a JSON {@code null} for one too); a record component of a reference type without
 * {@code @Nullable} in a JSpecify {@code @NullMarked} scope (the record, a class around it, its
 * package or module; {@code null} is refused as well); a non-null Kotlin constructor property
 * without a default value. A {@code @Nullable} component, a Kotlin property with a default value or
 * a nullable type, and a reference component outside a {@code @NullMarked} scope may be missing
 * (it reads as {@code null} or the default). {@link #using(ObjectMapper)} keeps the reading rules of
 * the mapper given.
 */
public final class JacksonEventSerializer implements EventSerializer {

    private static final Pattern PLAIN_KEY = Pattern.compile("[A-Za-z_$][A-Za-z0-9_$]*");

    /**
     * The most bytes of JSON (UTF-8) an event may hold: 32 MiB. PostgreSQL refuses a {@code jsonb}
     * value of 256 MB or more, and its binary form can be several times the text (a list of small
     * numbers takes about six times as much), so this keeps every payload well inside it.
     */
    public static final int MAX_PAYLOAD_BYTES = 32 * 1024 * 1024;

    private final ObjectMapper mapper;
    /** The limits the reading side applies, checked when an event is written: the same object for both. */
    private final StreamReadConstraints readLimits;

    private JacksonEventSerializer(ObjectMapper mapper) {
        this.mapper = mapper;
        this.readLimits = mapper.getFactory().streamReadConstraints();
    }

    static JacksonEventSerializer create() {
        return withModules();
    }

    /**
     * The default serializer, with {@code modules} registered before the ones found on the class
     * path: a module given here takes the place of a found one of the same type (Jackson keeps the
     * first registration of each), so that, say, a {@code KotlinModule} set up your own way is the one
     * that reads and writes Kotlin classes. Everything else is the default's: java.time as ISO-8601
     * text, the refusals and the reading rules above (outbox-kotlin's {@code KotlinEventSerializer}
     * is built this way).
     */
    public static JacksonEventSerializer withModules(Module... modules) {
        SimpleModule refusals = new SimpleModule("outbox-refusals");
        refuse(
                refusals,
                Date.class,
                "is a java.util.Date, whose JSON form depends on the time zone: use java.time.Instant");
        refuse(
                refusals,
                Calendar.class,
                "is a java.util.Calendar, whose JSON form depends on the time zone: use java.time types");
        refuse(refusals, Optional.class, "is an Optional, which has no stable JSON form: use a nullable field");
        refuse(refusals, OptionalInt.class, "is an OptionalInt, which has no stable JSON form: use a nullable field");
        refuse(refusals, OptionalLong.class, "is an OptionalLong, which has no stable JSON form: use a nullable field");
        refuse(
                refusals,
                OptionalDouble.class,
                "is an OptionalDouble, which has no stable JSON form: use a nullable field");
        refuse(refusals, Class.class, "is a Class, which is not data");
        refuse(refusals, Thread.class, "is a Thread, which is not data");
        refuse(refusals, InputStream.class, "is a stream, which is not data");
        refuse(refusals, OutputStream.class, "is a stream, which is not data");
        refuse(refusals, Reader.class, "is a reader, which is not data");
        refuse(refusals, Writer.class, "is a writer, which is not data");
        refuse(refusals, File.class, "is a File, which is not data");
        refuse(refusals, Path.class, "is a Path, which is not data");
        JsonMapper mapper = JsonMapper.builder()
                .addModules(modules)
                .findAndAddModules()
                .addModule(new JavaTimeModule())
                .addModule(refusals)
                .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
                .disable(SerializationFeature.WRITE_DURATIONS_AS_TIMESTAMPS)
                .enable(SerializationFeature.FAIL_ON_EMPTY_BEANS)
                .addModule(NullMarkedRecords.module())
                .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
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
        StringWriter out = new StringWriter();
        CheckingGenerator checked = null;
        try (JsonGenerator target = mapper.createGenerator(out)) {
            checked = new CheckingGenerator(target, readLimits);
            mapper.writeValue(checked, event);
        } catch (IOException | RuntimeException e) {
            CheckingGenerator.Refusal refusal = find(e, CheckingGenerator.Refusal.class);
            if (refusal != null) {
                throw new EventEncodingException(eventType, refusal.path, refusal.problem);
            }
            String path = checked == null ? "$" : checked.path();
            JsonMappingException cause = find(e, JsonMappingException.class);
            String problem;
            if (cause != null && cause.getCause() instanceof RefusedType refused) {
                problem = refused.problem;
            } else if (cause instanceof InvalidDefinitionException d && d.getType() != null) {
                problem = "is a " + d.getType().getRawClass().getName() + ", which has no stable JSON form"
                        + " (a class with no properties, say: give it fields with getters, or make it a record)";
            } else {
                // Jackson's own words about the type; the class only when a getter of the event threw
                problem = "cannot be written as JSON ("
                        + (cause == null
                                ? e.getClass().getSimpleName()
                                : cause.getCause() == null
                                        ? cause.getOriginalMessage()
                                        : cause.getCause().getClass().getName())
                        + ")";
            }
            throw new EventEncodingException(eventType, path, problem, e);
        }
        String json = out.toString();
        long bytes = utf8Length(json);
        if (bytes > MAX_PAYLOAD_BYTES) {
            throw new EventEncodingException(
                    eventType,
                    "$",
                    "is " + bytes + " bytes of JSON, more than the " + MAX_PAYLOAD_BYTES
                            + " an event may hold (PostgreSQL's jsonb keeps less than 256 MB)");
        }
        if (checked.wroteNull()) {
            requireNullsReadable(eventType, json, event.getClass());
        }
        return json;
    }

    /**
     * Reads {@code json} back into {@code type} as a worker would, and refuses it when a {@code null}
     * in it is one the reading rules refuse (a non-{@code @Nullable} component in a {@code @NullMarked}
     * scope, a non-null Kotlin type): recorded, it would fail {@code undeserializable_event} for good.
     * Whatever else stops the reading (a class written for other consumers, with no creator) is not
     * this serializer's to judge.
     */
    private void requireNullsReadable(String eventType, String json, Class<?> type) {
        try {
            mapper.readValue(json, type);
        } catch (InvalidNullException e) {
            throw new EventEncodingException(
                    eventType,
                    jsonPath(e) + nullInside(json, e),
                    "is null, which its class does not allow (a"
                            + " component without @Nullable in a @NullMarked scope, or a non-null Kotlin type): no worker could read the event");
        } catch (JsonProcessingException | RuntimeException e) {
            // not a null the reading rules refuse
        }
    }

    /**
     * Where in the value at the path of {@code e} the null is, when that value is a collection whose
     * element was refused ({@code [1]}, or {@code .<key #2>} for a map: keys are payload data), else
     * nothing: a reader may refuse a list for its elements at the list's own path.
     */
    private String nullInside(String json, JsonMappingException e) {
        try {
            JsonNode node = mapper.readTree(json);
            for (JsonMappingException.Reference ref : e.getPath()) {
                node = ref.getFieldName() != null ? node.path(ref.getFieldName()) : node.path(ref.getIndex());
            }
            int i = 0;
            for (JsonNode element : node) {
                if (element.isNull()) {
                    return node.isArray() ? "[" + i + "]" : ".<key #" + i + ">";
                }
                i++;
            }
        } catch (JsonProcessingException | RuntimeException notFound) {
            // the path alone, then
        }
        return "";
    }

    /** Builds and caches the deserializer of {@code type} (a reader's prefetch, which keeps to itself a class it cannot read). */
    @Override
    public void prepare(Class<?> type) {
        mapper.readerFor(type);
    }

    @Override
    public <T> T deserialize(String json, Class<T> type) {
        try {
            return mapper.readValue(json, type);
        } catch (JsonProcessingException e) {
            // the location and path only: the message of a parser may quote the payload
            String path = e instanceof JsonMappingException m ? jsonPath(m) : "$";
            throw new OutboxException(
                    "cannot read an event of class " + type.getName() + " at " + path + " ("
                            + e.getClass().getSimpleName() + ")",
                    null);
        }
    }

    private static long utf8Length(String text) {
        long bytes = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
                bytes += 4;
                i++;
            } else {
                bytes += c < 0x80 ? 1 : c < 0x800 ? 2 : 3;
            }
        }
        return bytes;
    }

    private static <X extends Throwable> @Nullable X find(Throwable e, Class<X> type) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return type.cast(t);
            }
        }
        return null;
    }

    private static String jsonPath(JsonMappingException e) {
        StringBuilder path = new StringBuilder("$");
        for (JsonMappingException.Reference ref : e.getPath()) {
            Object from = ref.getFrom();
            if (ref.getFieldName() != null
                    && (from instanceof Map
                            || from instanceof JsonNode
                            || (from instanceof Class<?> c
                                    && (Map.class.isAssignableFrom(c) || JsonNode.class.isAssignableFrom(c))))) {
                path.append(".<key>"); // a key of a map is payload data
            } else if (ref.getFieldName() != null) {
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
            public void serialize(T value, JsonGenerator gen, SerializerProvider serializers)
                    throws java.io.IOException {
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
