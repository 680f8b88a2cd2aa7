package dev.outbox.testing;

import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The series that PromQL expressions name (a dashboard's or an alert rule's), so that tests can hold
 * them against the series a real Prometheus registry produces.
 */
public final class PromQl {

    /** PromQL's functions, operators and keywords that our expressions use: not series. */
    static final Set<String> WORDS = Set.of(
            "sum",
            "max",
            "min",
            "avg",
            "count",
            "rate",
            "irate",
            "increase",
            "delta",
            "histogram_quantile",
            "absent",
            "or",
            "and",
            "unless",
            "by",
            "without",
            "on",
            "ignoring",
            "offset",
            "bool",
            "clamp_min");

    static final Pattern IDENTIFIER = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*");

    private PromQl() {}

    /** The series the expressions name: what is left of them without strings, label matchers, ranges, groupings and PromQL's words. */
    public static Set<String> series(List<String> exprs) {
        Set<String> names = new TreeSet<>();
        for (String expr : exprs) {
            String e = expr.replaceAll("label_values\\(\\s*([a-zA-Z_:][a-zA-Z0-9_:]*)\\s*,[^)]*\\)", "$1")
                    .replaceAll("\"[^\"]*\"", "")
                    .replaceAll("\\{[^}]*}", "")
                    .replaceAll("\\[[^]]*]", "")
                    .replaceAll("\\b(by|without|on|ignoring|group_left|group_right)\\s*\\([^)]*\\)", "");
            Matcher m = IDENTIFIER.matcher(e);
            while (m.find()) {
                if (!WORDS.contains(m.group())) {
                    names.add(m.group());
                }
            }
        }
        return names;
    }
}
