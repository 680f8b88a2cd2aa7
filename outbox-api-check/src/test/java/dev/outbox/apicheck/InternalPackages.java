package dev.outbox.apicheck;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The rule of issue 13: a package with an {@code internal} segment ({@code dev.outbox.relay.internal})
 * belongs to the one module whose main classes define it, and only that module (its main classes and
 * its tests) may reference it or put classes into it. The one exception is {@link #SHARED}: the state
 * machine of {@code outbox-delivery}, which the engine modules named there use and applications do
 * not.
 */
final class InternalPackages {

    private InternalPackages() {}

    /** Ours ({@code dev.outbox.*}) with an {@code internal} segment; other libraries' internals (Kotlin's {@code kotlin.jvm.internal}) are theirs. */
    static boolean isInternal(String pkg) {
        return pkg.startsWith(OURS) && (pkg.endsWith(".internal") || pkg.contains(".internal."));
    }

    private static final String OURS = "dev.outbox.";

    /** Internal packages shared on purpose, each with the modules besides its owner that may reference it. */
    static final Map<String, Set<String>> SHARED = Map.of(
            "dev.outbox.delivery.internal",
            Set.of(
                    "outbox-relay",
                    "outbox-worker",
                    "outbox-admin",
                    "outbox-relay-service",
                    "outbox-testkit",
                    "outbox-bench"));

    /** Every breach of the rule, one line each ("module: references other-module's internal package p"); empty when none. */
    static List<String> violations(List<ModuleClasses> modules) {
        Map<String, String> owner = new TreeMap<>();
        for (ModuleClasses m : modules) {
            m.mainPackages().stream()
                    .filter(InternalPackages::isInternal)
                    .forEach(p -> owner.putIfAbsent(p, m.module()));
        }
        List<String> violations = new ArrayList<>();
        for (ModuleClasses m : modules) {
            for (String p : m.referencedPackages()) {
                String o = owner.get(p);
                if (isInternal(p)
                        && !m.module().equals(o)
                        && !SHARED.getOrDefault(p, Set.of()).contains(m.module())) {
                    violations.add(m.module() + ": references " + p
                            + (o == null ? " (an internal package no module defines)" : ", internal to " + o));
                }
            }
            for (String p : m.definedPackages()) {
                String o = owner.get(p);
                if (isInternal(p)
                        && !m.mainPackages().contains(p)
                        && !m.module().equals(o)) {
                    violations.add(m.module() + ": puts classes into " + p + (o == null ? "" : ", internal to " + o));
                }
            }
        }
        return violations;
    }
}
