package dev.outbox.spring.boot.autoconfigure;

import dev.outbox.api.Outbox;
import dev.outbox.worker.OutboxWorker;
import io.micrometer.tracing.Tracer;
import io.opentelemetry.api.OpenTelemetry;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.util.ClassUtils;

/**
 * Gives recording and the worker the application's tracer. With an {@code OpenTelemetry} bean (the one
 * Boot declares with Micrometer Tracing's OpenTelemetry bridge) the worker's spans go to it: Boot does
 * not install it as {@code GlobalOpenTelemetry}, the worker's default; recording needs nothing, since
 * the bridge keeps the current span in OpenTelemetry's {@code Context}. Without one, a Micrometer
 * Tracing {@code Tracer} bean (the Brave bridge's) gives both ({@link MicrometerTracing}, {@link MicrometerJobTracer}). Both APIs stay
 * optional: the nested classes that name them load only behind the class-path checks.
 */
final class OutboxTracing {

    private static final ClassLoader LOADER = OutboxTracing.class.getClassLoader();
    private static final boolean OPEN_TELEMETRY = ClassUtils.isPresent("io.opentelemetry.api.OpenTelemetry", LOADER);
    private static final boolean MICROMETER_TRACING = ClassUtils.isPresent("io.micrometer.tracing.Tracer", LOADER);

    private OutboxTracing() {}

    /** Gives {@code builder} the context's tracer, if there is one. */
    static OutboxWorker.Builder bind(OutboxWorker.Builder builder, BeanFactory beans) {
        if (OPEN_TELEMETRY && Otel.present(beans)) {
            return Otel.bind(builder, beans);
        }
        return MICROMETER_TRACING ? Micrometer.bind(builder, beans) : builder;
    }

    /** Gives recording the Micrometer tracer's current span when there is no {@code OpenTelemetry} bean. */
    static Outbox.Builder bind(Outbox.Builder builder, BeanFactory beans) {
        if (OPEN_TELEMETRY && Otel.present(beans)) {
            return builder;
        }
        return MICROMETER_TRACING ? Micrometer.bind(builder, beans) : builder;
    }

    /** Names {@code OpenTelemetry}: loaded only behind the class-path check. */
    private static final class Otel {
        static boolean present(BeanFactory beans) {
            return beans.getBeanProvider(OpenTelemetry.class).getIfUnique() != null;
        }

        static OutboxWorker.Builder bind(OutboxWorker.Builder builder, BeanFactory beans) {
            return builder.openTelemetry(
                    beans.getBeanProvider(OpenTelemetry.class).getObject());
        }
    }

    /** Names Micrometer Tracing's {@code Tracer}: loaded only behind the class-path check. */
    private static final class Micrometer {
        static @Nullable Tracer tracer(BeanFactory beans) {
            @Nullable Tracer tracer = beans.getBeanProvider(Tracer.class).getIfUnique();
            return tracer == null || tracer == Tracer.NOOP ? null : tracer;
        }

        static OutboxWorker.Builder bind(OutboxWorker.Builder builder, BeanFactory beans) {
            @Nullable Tracer tracer = tracer(beans);
            return tracer == null ? builder : builder.tracer(new MicrometerJobTracer(tracer));
        }

        static Outbox.Builder bind(Outbox.Builder builder, BeanFactory beans) {
            @Nullable Tracer tracer = tracer(beans);
            return tracer == null ? builder : builder.traceContext(MicrometerTracing.recording(tracer));
        }
    }
}
