package dev.outbox.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** What the benchmark reads from the output of the reference in a JVM of its own. */
class FreshReferenceTest {

    @Test
    void readsTheCpuItsJvmUsedFromTheLineThatSaysItCompleted() {
        String output = "[main] INFO something\nreference completed 500; its JVM's CPU s 2.375\n";
        assertThat(FreshReference.cpuSeconds(output)).isEqualTo(2.375);
    }

    @Test
    void refusesOutputThatDoesNotSayItCompleted() {
        assertThatThrownBy(() -> FreshReference.cpuSeconds(
                        "java.lang.IllegalStateException: reference: only 3 of 500 completed"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("does not say it completed its events")
                .hasMessageContaining("only 3 of 500");
    }
}
