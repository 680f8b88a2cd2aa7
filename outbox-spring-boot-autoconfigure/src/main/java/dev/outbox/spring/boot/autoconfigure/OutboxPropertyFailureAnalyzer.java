package dev.outbox.spring.boot.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Tells a start that failed on a bad {@code outbox.*} setting ({@link OutboxPropertyException}) as Boot
 * tells a bind error: the property and what is wrong with it, then what to do, instead of the stack of
 * the bean that could not be built. Registered in {@code META-INF/spring.factories}.
 */
final class OutboxPropertyFailureAnalyzer extends AbstractFailureAnalyzer<OutboxPropertyException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, OutboxPropertyException cause) {
        return new FailureAnalysis(
                "The outbox could not start: the property '" + cause.property() + "' is not valid.\n\n    "
                        + cause.getMessage(),
                "Update '" + cause.property()
                        + "' in the application's configuration (docs/spring-boot.md lists every outbox.*"
                        + " property and its values).",
                cause);
    }
}
