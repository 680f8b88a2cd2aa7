package dev.outbox.testing;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;

/**
 * A slow scenario (10,000 deliveries and more, child JVMs, the benchmark's smoke run): tagged
 * {@value #TAG} and given 15 minutes a test instead of the build's default of 5. The README's test
 * command runs it; {@code ./mvnw -B verify -DexcludedGroups=slow} leaves it out.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Tag(Slow.TAG)
@Timeout(value = 15, unit = TimeUnit.MINUTES)
public @interface Slow {

    /** The JUnit tag of slow scenarios. */
    String TAG = "slow";
}
