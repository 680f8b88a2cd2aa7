package dev.outbox.spring.boot.autoconfigure;

import dev.outbox.worker.OutboxWorker;
import io.opentelemetry.api.OpenTelemetry;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.util.ClassUtils;

/**
 * Gives the worker the application's {@code OpenTelemetry} bean, the one Boot declares with Micrometer
 * Tracing's OpenTelemetry bridge. Boot does not install it as {@code GlobalOpenTelemetry}, the worker's
 * default, so without this the job spans would go to the no-op global. Recording needs nothing: it
 * reads the current span's context, which the bridge keeps in OpenTelemetry's {@code Context}. The
 * OpenTelemetry API stays optional: this class is the only one that names it, loaded only when the API
 * is on the class path.
 */
final class OutboxTracing {

    private static final boolean OPEN_TELEMETRY = ClassUtils.isPresent("io.opentelemetry.api.OpenTelemetry",
            OutboxTracing.class.getClassLoader());

    private OutboxTracing() {}

    /** Gives {@code builder} the context's one {@code OpenTelemetry}, if the API is present and there is one. */
    static OutboxWorker.Builder bind(OutboxWorker.Builder builder, BeanFactory beans) {
        return OPEN_TELEMETRY ? Api.bind(builder, beans) : builder;
    }

    /** Names {@code OpenTelemetry}: loaded only behind the class-path check. */
    private static final class Api {
        static OutboxWorker.Builder bind(OutboxWorker.Builder builder, BeanFactory beans) {
            @Nullable OpenTelemetry openTelemetry = beans.getBeanProvider(OpenTelemetry.class).getIfUnique();
            return openTelemetry == null ? builder : builder.openTelemetry(openTelemetry);
        }
    }
}
