package dev.outbox.relay;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;
import dev.outbox.api.Names;
import dev.outbox.delivery.LogText;
import dev.outbox.delivery.amqp.AmqpNames;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * The routes file read by {@link Routes#fromFile(Path)}: YAML ({@code .yaml}, {@code .yml}) or JSON
 * ({@code .json}).
 *
 * <pre>
 * routes:
 *   order.placed:
 *     - job: send-confirmation          # job type
 *       queue: emails
 *       retryDelaysSeconds: [5, 30, 120]
 *       deliveryTimeoutSeconds: 300
 *       ordered: true                   # per ordering key, in order; or block (the same), skip, false
 *     - publish: order-events           # a name for the route
 *       exchange: orders
 *       routingKey: order.placed
 *       retryDelaysSeconds: [5]
 *       deliveryTimeoutSeconds: 60
 * </pre>
 *
 * Instead of {@code retryDelaysSeconds}, a route may give
 * {@code retry: {exponential: {initialSeconds: 5, factor: 3, capSeconds: 3600, retries: 6}}}.
 * Every error names the file and the path, e.g.
 * {@code routes.yaml: $.routes['order.placed'][1].retryDelaysSeconds[0]: must be a positive whole number of seconds,
 * got 0 (event type 'order.placed')}, or the line and column of a syntax error. A key given twice
 * and an unknown field are errors, and so are: a file that names no event type ({@code routes: {}}),
 * a second YAML or JSON document in the file, YAML anchors, aliases and merge keys
 * ({@code &a}, {@code *a}, {@code <<: *a}: write each value out), and every value {@link Route}
 * refuses (queues, exchanges and routing keys over 255 bytes in UTF-8, queues named {@code amq.*},
 * delays over 30 days, timeouts over 7 days).
 */
public final class RoutesFile {

    private static final Set<String> JOB_FIELDS =
            Set.of("job", "queue", "retryDelaysSeconds", "retry", "deliveryTimeoutSeconds", "ordered");
    private static final Set<String> PUBLISH_FIELDS = Set.of(
            "publish", "exchange", "routingKey", "retryDelaysSeconds", "retry", "deliveryTimeoutSeconds", "ordered");
    private static final Set<String> EXPONENTIAL_FIELDS = Set.of("initialSeconds", "factor", "capSeconds", "retries");

    private RoutesFile() {}

    static Routes read(Path file) {
        String name = file.getFileName() == null
                ? file.toString()
                : file.getFileName().toString().toLowerCase(Locale.ROOT);
        ObjectMapper mapper;
        String format;
        if (name.endsWith(".yaml") || name.endsWith(".yml")) {
            mapper = new ObjectMapper(new YAMLFactory());
            format = "YAML";
        } else if (name.endsWith(".json")) {
            mapper = new ObjectMapper();
            format = "JSON";
        } else {
            throw new InvalidRouteException(file + ": a routes file ends in .yaml, .yml or .json");
        }
        // a key given twice (an event type, a field) is an error, not a silent overwrite
        mapper.enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
        String text;
        try {
            text = Files.readString(file);
        } catch (NoSuchFileException e) {
            throw new InvalidRouteException(file + ": no such routes file", e);
        } catch (IOException e) {
            throw new InvalidRouteException(
                    file + ": cannot read the routes file (" + e.getClass().getSimpleName() + ")", e);
        }
        JsonNode root;
        try {
            checkStructure(file, mapper, text);
            root = mapper.readTree(text);
        } catch (JsonProcessingException e) {
            JsonLocation at = e.getLocation();
            String where = at == null || at.getLineNr() < 1
                    ? ""
                    : " at line " + at.getLineNr() + ", column " + at.getColumnNr();
            throw new InvalidRouteException(
                    file + where + ": not valid " + format + " (" + e.getOriginalMessage() + ")", e);
        } catch (IOException e) {
            throw new InvalidRouteException(
                    file + ": cannot read the routes file (" + e.getClass().getSimpleName() + ")", e);
        }
        return parse(file.toString(), root);
    }

    /**
     * Refuses what the tree would silently get wrong: a YAML anchor or alias (Jackson's YAML parser
     * does not resolve an alias, it reads {@code *a} as the text {@code "a"}, so a route would go to a
     * queue named after the anchor) and a second document (the tree holds the first one only). Every
     * alias is refused at its line, and so is an anchor on a mapping or a list; an anchor on a plain
     * value is invisible to Jackson's parser, and harmless alone: its alias is refused.
     */
    private static void checkStructure(Path file, ObjectMapper mapper, String text) throws IOException {
        try (JsonParser p = mapper.getFactory().createParser(text)) {
            int depth = 0;
            int documents = 0;
            for (JsonToken t = p.nextToken(); t != null; t = p.nextToken()) {
                if (p instanceof YAMLParser yaml && (yaml.isCurrentAlias() || yaml.getObjectId() != null)) {
                    throw new InvalidRouteException(
                            file + " at line " + p.currentTokenLocation().getLineNr() + ": YAML anchors and aliases ("
                                    + (yaml.isCurrentAlias() ? "*" : "&")
                                    + LogText.of(yaml.isCurrentAlias() ? yaml.getText() : yaml.getObjectId())
                                    + ") are not supported in a routes file: write each value out");
                }
                if (depth == 0 && t != JsonToken.END_OBJECT && t != JsonToken.END_ARRAY && ++documents > 1) {
                    throw new InvalidRouteException(
                            file + " at line " + p.currentTokenLocation().getLineNr()
                                    + ": a second document; a routes file holds exactly one");
                }
                if (t.isStructStart()) {
                    depth++;
                } else if (t.isStructEnd()) {
                    depth--;
                }
            }
        }
    }

    /** Reads routes from a parsed tree; {@code source} names it in errors. */
    static Routes parse(String source, JsonNode root) {
        if (root == null || !root.isObject()) {
            throw new InvalidRouteException(source + ": $: the top level must be a mapping with the key 'routes'");
        }
        unknownFields(new At(source, "$", null), root, Set.of("routes"));
        JsonNode routes = root.get("routes");
        if (routes == null || !routes.isObject()) {
            throw new InvalidRouteException(
                    source + ": $.routes: must be a mapping from event type to a list of routes");
        }
        if (routes.isEmpty()) {
            throw new InvalidRouteException(
                    source + ": $.routes: names no event type; a routes file needs at least one route");
        }
        Routes.Builder builder = Routes.builder();
        Iterator<Map.Entry<String, JsonNode>> types = routes.properties().iterator();
        while (types.hasNext()) {
            Map.Entry<String, JsonNode> type = types.next();
            String eventType = type.getKey();
            if (!Names.isStableName(eventType)) {
                throw new At(source, "$.routes['" + LogText.of(eventType) + "']", null)
                        .error("an event type must match " + Names.STABLE_NAME.pattern());
            }
            At at = new At(source, "$.routes['" + eventType + "']", eventType);
            JsonNode list = type.getValue();
            if (!list.isArray() || list.isEmpty()) {
                throw at.error("needs a non-empty list of routes");
            }
            List<Route> parsed = new ArrayList<>();
            for (int i = 0; i < list.size(); i++) {
                parsed.add(route(at.index(i), list.get(i)));
            }
            try {
                builder.route(eventType, parsed);
            } catch (InvalidRouteException e) {
                throw new InvalidRouteException(source + ": " + at.path + ": " + e.getMessage(), e);
            }
        }
        return builder.build();
    }

    private static Route route(At at, JsonNode node) {
        if (!node.isObject()) {
            throw at.error("a route is a mapping");
        }
        boolean job = node.has("job");
        boolean publish = node.has("publish");
        if (job == publish) {
            throw at.error("a route has exactly one of 'job' (a job route) or 'publish' (a publish route)");
        }
        unknownFields(at, node, job ? JOB_FIELDS : PUBLISH_FIELDS);
        String name = job ? text(at, node, "job") : text(at, node, "publish");
        if (!Names.isStableName(name)) {
            throw at.field(job ? "job" : "publish")
                    .error("must match " + Names.STABLE_NAME.pattern() + ", got '" + LogText.of(name) + "'");
        }
        String destination = job ? text(at, node, "queue") : text(at, node, "exchange");
        refuse(
                at.field(job ? "queue" : "exchange"),
                job ? AmqpNames.queueProblem(destination) : AmqpNames.shortStringProblem(destination, false));
        String routingKey = job ? "" : text(at, node, "routingKey"); // a job route has none
        if (!job) {
            refuse(at.field("routingKey"), AmqpNames.shortStringProblem(routingKey, true));
        }
        List<Duration> delays = delays(at, node);
        int timeout = integer(at, node, "deliveryTimeoutSeconds");
        refuse(at.field("deliveryTimeoutSeconds"), RouteChecks.timeoutProblem(timeout));
        Ordering ordering = ordering(at, node);
        try {
            return job
                    ? Route.job(name, destination, delays, Duration.ofSeconds(timeout))
                            .ordered(ordering)
                    : Route.publish(name, destination, routingKey, delays, Duration.ofSeconds(timeout))
                            .ordered(ordering);
        } catch (IllegalArgumentException e) {
            throw at.error(Objects.toString(e.getMessage(), e.toString()));
        }
    }

    private static List<Duration> delays(At at, JsonNode node) {
        JsonNode list = node.get("retryDelaysSeconds");
        JsonNode retry = node.get("retry");
        if ((list == null) == (retry == null)) {
            throw at.error("give exactly one of 'retryDelaysSeconds' (a list, possibly empty) or 'retry'");
        }
        if (list != null) {
            At listAt = at.field("retryDelaysSeconds");
            if (!list.isArray()) {
                throw listAt.error("must be a list of positive whole seconds");
            }
            if (list.size() > Route.MAX_RETRIES) {
                throw listAt.error("has " + list.size() + " entries, at most " + Route.MAX_RETRIES);
            }
            List<Duration> delays = new ArrayList<>();
            for (int i = 0; i < list.size(); i++) {
                JsonNode d = list.get(i);
                if (!d.isIntegralNumber() || !d.canConvertToInt()) {
                    throw listAt.index(i)
                            .error("must be a positive whole number of seconds, got " + LogText.of(d.toString()));
                }
                refuse(listAt.index(i), RouteChecks.delayProblem(d.intValue()));
                delays.add(Duration.ofSeconds(d.intValue()));
            }
            return delays;
        }
        At retryAt = at.field("retry");
        if (!retry.isObject()) {
            throw retryAt.error("must be {exponential: {initialSeconds, factor, capSeconds, retries}}");
        }
        unknownFields(retryAt, retry, Set.of("exponential"));
        JsonNode exp = retry.get("exponential");
        At expAt = retryAt.field("exponential");
        if (exp == null || !exp.isObject()) {
            throw expAt.error("must be a mapping {initialSeconds, factor, capSeconds, retries}");
        }
        unknownFields(expAt, exp, EXPONENTIAL_FIELDS);
        JsonNode factor = exp.get("factor");
        if (factor == null || !factor.isNumber()) {
            throw expAt.field("factor").error("must be a number >= 1");
        }
        int initial = integer(expAt, exp, "initialSeconds");
        int cap = integer(expAt, exp, "capSeconds");
        int retries = integer(expAt, exp, "retries");
        try {
            return RetrySchedule.exponentialSeconds(initial, factor.doubleValue(), cap, retries);
        } catch (IllegalArgumentException e) {
            throw expAt.error(Objects.toString(e.getMessage(), e.toString()));
        }
    }

    private static void refuse(At at, @Nullable String problem) {
        if (problem != null) {
            throw at.error(problem);
        }
    }

    private static String text(At at, JsonNode node, String field) {
        JsonNode value = node.get(field);
        if (value == null || !value.isTextual()) {
            throw at.field(field).error("must be a string, got " + (value == null ? "nothing" : value.getNodeType()));
        }
        return value.textValue();
    }

    /** {@code ordered}: absent or {@code false} (unordered), {@code true} or {@code block}, or {@code skip}. */
    private static Ordering ordering(At at, JsonNode node) {
        JsonNode value = node.get("ordered");
        if (value == null || (value.isBoolean() && !value.booleanValue())) {
            return Ordering.UNORDERED;
        }
        if (value.isBoolean() || (value.isTextual() && value.textValue().equals("block"))) {
            return Ordering.BLOCK;
        }
        if (value.isTextual() && value.textValue().equals("skip")) {
            return Ordering.SKIP;
        }
        throw at.field("ordered")
                .error("must be true, false, 'block' or 'skip', got "
                        + (value.isTextual()
                                ? "'" + LogText.of(value.textValue()) + "'"
                                : value.getNodeType().toString().toLowerCase(Locale.ROOT)));
    }

    private static int integer(At at, JsonNode node, String field) {
        JsonNode value = node.get(field);
        if (value == null || !value.isIntegralNumber() || !value.canConvertToInt()) {
            throw at.field(field)
                    .error("must be a whole number, got " + (value == null ? "nothing" : LogText.of(value.toString())));
        }
        return value.intValue();
    }

    private static void unknownFields(At at, JsonNode node, Set<String> allowed) {
        Iterator<String> names = node.fieldNames();
        while (names.hasNext()) {
            String field = names.next();
            if (!allowed.contains(field)) {
                throw at.error("unknown field '" + LogText.of(field) + "' (allowed: " + new TreeSet<>(allowed) + ")");
            }
        }
    }

    /** A place in the file: its JSON path and the event type it belongs to, for messages. */
    private record At(String source, String path, @Nullable String eventType) {

        At field(String name) {
            return new At(source, path + "." + name, eventType);
        }

        At index(int i) {
            return new At(source, path + "[" + i + "]", eventType);
        }

        InvalidRouteException error(String problem) {
            return new InvalidRouteException(source + ": " + path + ": " + problem
                    + (eventType == null ? "" : " (event type '" + eventType + "')"));
        }
    }
}
