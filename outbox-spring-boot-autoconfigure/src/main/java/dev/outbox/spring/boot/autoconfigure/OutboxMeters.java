package dev.outbox.spring.boot.autoconfigure;

import dev.outbox.api.Outbox;
import dev.outbox.relay.OutboxRelay;
import dev.outbox.worker.OutboxWorker;
import io.micrometer.core.instrument.MeterRegistry;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.util.ClassUtils;

/**
 * Binds the outbox's meters to the application's {@code MeterRegistry} (Boot's, with actuator),
 * with the names the relay service uses (the worker's: those of outbox-worker; the embedded relay's:
 * those of the relay service, the same outbox-relay meters). Micrometer stays optional: this class is the only one that
 * names it, and it is loaded only when Micrometer is on the class path.
 */
final class OutboxMeters {

    private static final boolean MICROMETER =
            ClassUtils.isPresent("io.micrometer.core.instrument.MeterRegistry", OutboxMeters.class.getClassLoader());

    private OutboxMeters() {}

    /** Gives {@code builder} the context's one {@code MeterRegistry}, if Micrometer is present and there is one. */
    static Outbox.Builder bind(Outbox.Builder builder, BeanFactory beans) {
        return MICROMETER ? Registry.bind(builder, beans) : builder;
    }

    /** Gives {@code builder} the context's one {@code MeterRegistry}, if Micrometer is present and there is one. */
    static OutboxWorker.Builder bind(OutboxWorker.Builder builder, BeanFactory beans) {
        return MICROMETER ? Registry.bind(builder, beans) : builder;
    }

    /**
     * Gives {@code builder} the context's one {@code MeterRegistry}, if Micrometer is present and there is
     * one: the relay's meters, named as the relay service's.
     */
    static OutboxRelay.Builder bind(OutboxRelay.Builder builder, BeanFactory beans) {
        return MICROMETER ? Registry.bind(builder, beans) : builder;
    }

    /** Names {@code MeterRegistry}: loaded only behind the class-path check. */
    private static final class Registry {
        static Outbox.Builder bind(Outbox.Builder builder, BeanFactory beans) {
            MeterRegistry registry = of(beans);
            return registry == null ? builder : builder.meterRegistry(registry);
        }

        static OutboxWorker.Builder bind(OutboxWorker.Builder builder, BeanFactory beans) {
            MeterRegistry registry = of(beans);
            return registry == null ? builder : builder.meterRegistry(registry);
        }

        static OutboxRelay.Builder bind(OutboxRelay.Builder builder, BeanFactory beans) {
            MeterRegistry registry = of(beans);
            return registry == null ? builder : builder.meterRegistry(registry);
        }

        private static @Nullable MeterRegistry of(BeanFactory beans) {
            return beans.getBeanProvider(MeterRegistry.class).getIfUnique();
        }
    }
}
