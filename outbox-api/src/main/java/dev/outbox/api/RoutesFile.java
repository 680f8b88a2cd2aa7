package dev.outbox.api;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

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
 *     - publish: order-events           # a name for the route
 *       exchange: orders
 *       routingKey: order.placed
 *       retryDelaysSeconds: [5]
 *       deliveryTimeoutSeconds: 60
 * </pre>
 *
 * Instead of {@code retryDelaysSeconds}, a route may give
 * {@code retry: {exponential: {initialSeconds: 5, factor: 3, capSeconds: 3600, retries: 6}}}.
 * Every error names the file and the path (and the line, for syntax errors).
 */
public final class RoutesFile {

    private static final Set<String> JOB_FIELDS = Set.of("job", "queue", "retryDelaysSeconds", "retry", "deliveryTimeoutSeconds");
    private static final Set<String> PUBLISH_FIELDS = Set.of("publish", "exchange", "routingKey", "retryDelaysSeconds", "retry",
            "deliveryTimeoutSeconds");
    private static final Set<String> EXPONENTIAL_FIELDS = Set.of("initialSeconds", "factor", "capSeconds", "retries");

    private RoutesFile() {}

    static Routes read(Path file) {
        String name = file.getFileName() == null ? file.toString() : file.getFileName().toString().toLowerCase(Locale.ROOT);
        ObjectMapper mapper;
        if (name.endsWith(".yaml") || name.endsWith(".yml")) {
            mapper = new ObjectMapper(new YAMLFactory());
        } else if (name.endsWith(".json")) {
            mapper = new ObjectMapper();
        } else {
            throw new InvalidRouteException(file + ": a routes file ends in .yaml, .yml or .json");
        }
        String text;
        try {
            text = Files.readString(file);
        } catch (NoSuchFileException e) {
            throw new InvalidRouteException(file + ": no such routes file", e);
        } catch (IOException e) {
            throw new InvalidRouteException(file + ": cannot read the routes file (" + e.getClass().getSimpleName() + ")", e);
        }
        JsonNode root;
        try {
            root = mapper.readTree(text);
        } catch (JsonProcessingException e) {
            JsonLocation at = e.getLocation();
            String where = at == null ? "" : " at line " + at.getLineNr() + ", column " + at.getColumnNr();
            throw new InvalidRouteException(file + where + ": not valid " + (mapper.getFactory() instanceof YAMLFactory ? "YAML" : "JSON")
                    + " (" + e.getOriginalMessage() + ")", e);
        }
        return parse(file.toString(), root);
    }

    /** Reads routes from a parsed tree; {@code source} names it in errors. */
    static Routes parse(String source, JsonNode root) {
        if (root == null || !root.isObject()) {
            throw new InvalidRouteException(source + ": the top level must be a mapping with the key 'routes'");
        }
        unknownFields(source, "$", root, Set.of("routes"));
        JsonNode routes = root.get("routes");
        if (routes == null || !routes.isObject()) {
            throw new InvalidRouteException(source + ": $.routes must be a mapping from event type to a list of routes");
        }
        Routes.Builder builder = Routes.builder();
        Iterator<Map.Entry<String, JsonNode>> types = routes.fields();
        while (types.hasNext()) {
            Map.Entry<String, JsonNode> type = types.next();
            String eventType = type.getKey();
            String typePath = "$.routes['" + eventType + "']";
            if (!Names.isStableName(eventType)) {
                throw new InvalidRouteException(source + ": " + typePath + ": event type must match " + Names.STABLE_NAME.pattern());
            }
            JsonNode list = type.getValue();
            if (!list.isArray() || list.isEmpty()) {
                throw new InvalidRouteException(source + ": " + typePath + ": event type '" + eventType + "' needs a non-empty list of routes");
            }
            List<Route> parsed = new ArrayList<>();
            for (int i = 0; i < list.size(); i++) {
                parsed.add(route(source, typePath + "[" + i + "]", eventType, list.get(i)));
            }
            try {
                builder.route(eventType, parsed);
            } catch (InvalidRouteException e) {
                throw new InvalidRouteException(source + ": " + typePath + ": " + e.getMessage(), e);
            }
        }
        return builder.build();
    }

    private static Route route(String source, String path, String eventType, JsonNode node) {
        String prefix = source + ": " + path + " (event type '" + eventType + "')";
        if (!node.isObject()) {
            throw new InvalidRouteException(prefix + ": a route is a mapping");
        }
        boolean job = node.has("job");
        boolean publish = node.has("publish");
        if (job == publish) {
            throw new InvalidRouteException(prefix + ": a route has exactly one of 'job' (a job route) or 'publish' (a publish route)");
        }
        unknownFields(prefix, "", node, job ? JOB_FIELDS : PUBLISH_FIELDS);
        List<Integer> delays = delays(prefix, node);
        int timeout = integer(prefix, node, "deliveryTimeoutSeconds");
        try {
            if (job) {
                return Route.job(text(prefix, node, "job"), text(prefix, node, "queue"), delays, timeout);
            }
            return Route.publish(text(prefix, node, "publish"), text(prefix, node, "exchange"), text(prefix, node, "routingKey"), delays,
                    timeout);
        } catch (IllegalArgumentException e) {
            throw new InvalidRouteException(prefix + ": " + e.getMessage(), e);
        }
    }

    private static List<Integer> delays(String prefix, JsonNode node) {
        JsonNode list = node.get("retryDelaysSeconds");
        JsonNode retry = node.get("retry");
        if ((list == null) == (retry == null)) {
            throw new InvalidRouteException(prefix + ": give exactly one of 'retryDelaysSeconds' (a list, possibly empty) or 'retry'");
        }
        if (list != null) {
            if (!list.isArray()) {
                throw new InvalidRouteException(prefix + ".retryDelaysSeconds: must be a list of positive whole seconds");
            }
            List<Integer> delays = new ArrayList<>();
            for (int i = 0; i < list.size(); i++) {
                JsonNode d = list.get(i);
                if (!d.isIntegralNumber() || !d.canConvertToInt() || d.intValue() <= 0) {
                    throw new InvalidRouteException(prefix + ".retryDelaysSeconds[" + i + "]: must be a positive whole number of seconds, got "
                            + d);
                }
                delays.add(d.intValue());
            }
            return delays;
        }
        unknownFields(prefix + ".retry", "", retry, Set.of("exponential"));
        JsonNode exp = retry.get("exponential");
        if (exp == null || !exp.isObject()) {
            throw new InvalidRouteException(prefix + ".retry: must be {exponential: {initialSeconds, factor, capSeconds, retries}}");
        }
        String expPrefix = prefix + ".retry.exponential";
        unknownFields(expPrefix, "", exp, EXPONENTIAL_FIELDS);
        JsonNode factor = exp.get("factor");
        if (factor == null || !factor.isNumber()) {
            throw new InvalidRouteException(expPrefix + ".factor: must be a number >= 1");
        }
        try {
            return RetrySchedule.exponential(integer(expPrefix, exp, "initialSeconds"), factor.doubleValue(),
                    integer(expPrefix, exp, "capSeconds"), integer(expPrefix, exp, "retries"));
        } catch (IllegalArgumentException e) {
            throw new InvalidRouteException(expPrefix + ": " + e.getMessage(), e);
        }
    }

    private static String text(String prefix, JsonNode node, String field) {
        JsonNode value = node.get(field);
        if (value == null || !value.isTextual()) {
            throw new InvalidRouteException(prefix + "." + field + ": must be a string");
        }
        return value.textValue();
    }

    private static int integer(String prefix, JsonNode node, String field) {
        JsonNode value = node.get(field);
        if (value == null || !value.isIntegralNumber() || !value.canConvertToInt()) {
            throw new InvalidRouteException(prefix + "." + field + ": must be a whole number, got " + (value == null ? "nothing" : value));
        }
        return value.intValue();
    }

    private static void unknownFields(String prefix, String path, JsonNode node, Set<String> allowed) {
        Iterator<String> names = node.fieldNames();
        while (names.hasNext()) {
            String field = names.next();
            if (!allowed.contains(field)) {
                throw new InvalidRouteException(prefix + path + ": unknown field '" + field + "' (allowed: " + new java.util.TreeSet<>(allowed) + ")");
            }
        }
    }
}
