package dev.outbox.apicheck;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class InternalPackagesTest {

    private static final Path ROOT =
            Path.of(System.getProperty("outbox.root", "..")).toAbsolutePath().normalize();

    @Test
    void noModuleReferencesAnotherModulesInternalPackage() {
        List<ModuleClasses> modules = ModuleClasses.modules(ROOT).stream()
                .map(m -> ModuleClasses.read(ROOT, m))
                .toList();
        assertThat(modules)
                .extracting(ModuleClasses::module)
                .contains(
                        "outbox-api",
                        "outbox-relay",
                        "outbox-worker",
                        "outbox-testkit",
                        "outbox-demo",
                        "outbox-bench",
                        "outbox-faults",
                        "outbox-kotlin-tests");
        assertThat(InternalPackages.violations(modules))
                .as("a module of ours uses another module's internal package; use its public API (docs/api.md)")
                .isEmpty();
    }

    @Test
    void readsTheRelaysOwnUseOfItsInternalPackage() {
        // the real check above would pass vacuously if jdeps' output were not understood
        ModuleClasses relay = ModuleClasses.read(ROOT, "outbox-relay");
        assertThat(relay.mainPackages()).contains("dev.outbox.relay", "dev.outbox.relay.internal");
        assertThat(relay.referencedPackages()).contains("dev.outbox.relay.internal", "dev.outbox.delivery", "org.jooq");
    }

    @Test
    void refusesAReferenceToAnotherModulesInternalPackage() {
        ModuleClasses relay = new ModuleClasses(
                "outbox-relay",
                Set.of("dev.outbox.relay", "dev.outbox.relay.internal"),
                Set.of("dev.outbox.relay", "dev.outbox.relay.internal"),
                Set.of("dev.outbox.relay.internal"));
        ModuleClasses demo = new ModuleClasses(
                "outbox-demo",
                Set.of("dev.outbox.demo"),
                Set.of("dev.outbox.demo"),
                Set.of("dev.outbox.relay", "dev.outbox.relay.internal"));
        assertThat(InternalPackages.violations(List.of(relay, demo)))
                .containsExactly("outbox-demo: references dev.outbox.relay.internal, internal to outbox-relay");
    }

    @Test
    void letsOnlyTheNamedEngineModulesUseTheSharedStateMachine() {
        ModuleClasses delivery = new ModuleClasses(
                "outbox-delivery",
                Set.of("dev.outbox.delivery", "dev.outbox.delivery.internal"),
                Set.of("dev.outbox.delivery", "dev.outbox.delivery.internal"),
                Set.of("dev.outbox.delivery.internal"));
        ModuleClasses relay = new ModuleClasses(
                "outbox-relay",
                Set.of("dev.outbox.relay"),
                Set.of("dev.outbox.relay"),
                Set.of("dev.outbox.delivery.internal"));
        ModuleClasses starter = new ModuleClasses(
                "outbox-spring-boot-autoconfigure",
                Set.of("dev.outbox.spring.boot.autoconfigure"),
                Set.of("dev.outbox.spring.boot.autoconfigure"),
                Set.of("dev.outbox.delivery", "dev.outbox.delivery.internal"));
        ModuleClasses worker = new ModuleClasses(
                "outbox-worker",
                Set.of("dev.outbox.worker"),
                Set.of("dev.outbox.worker", "dev.outbox.delivery.internal"),
                Set.of());
        assertThat(InternalPackages.violations(List.of(delivery, relay, starter, worker)))
                .containsExactly(
                        "outbox-spring-boot-autoconfigure: references dev.outbox.delivery.internal, internal to outbox-delivery",
                        "outbox-worker: puts classes into dev.outbox.delivery.internal, internal to outbox-delivery");
    }

    @Test
    void refusesTestClassesPutIntoAnotherModulesInternalPackage() {
        ModuleClasses worker = new ModuleClasses(
                "outbox-worker", Set.of("dev.outbox.worker.internal"), Set.of("dev.outbox.worker.internal"), Set.of());
        ModuleClasses service = new ModuleClasses(
                "outbox-relay-service",
                Set.of("dev.outbox.relay.cli"),
                Set.of("dev.outbox.relay.cli", "dev.outbox.worker.internal"),
                Set.of());
        assertThat(InternalPackages.violations(List.of(worker, service)))
                .containsExactly(
                        "outbox-relay-service: puts classes into dev.outbox.worker.internal, internal to outbox-worker");
    }

    @Test
    void knowsAnInternalPackageByItsSegment() {
        assertThat(InternalPackages.isInternal("dev.outbox.relay.internal")).isTrue();
        assertThat(InternalPackages.isInternal("dev.outbox.relay.internal.sql")).isTrue();
        assertThat(InternalPackages.isInternal("dev.outbox.internalize")).isFalse();
        assertThat(InternalPackages.isInternal("dev.outbox.delivery")).isFalse();
        assertThat(InternalPackages.isInternal("kotlin.jvm.internal"))
                .as("the Kotlin compiler's, not ours")
                .isFalse();
    }
}
