package dev.outbox.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/** The suite's options and the scenario's choice of keys and failures. */
class ScenarioTest {

    private static Scenario parse(String... pairs) {
        Map<String, String> options = new LinkedHashMap<>();
        for (int i = 0; i < pairs.length; i += 2) {
            options.put(pairs[i], pairs[i + 1]);
        }
        return FaultSuite.scenario(options);
    }

    @Test
    void orderedStartsFromTheOrderedScenarioAndTakesItsOptions() {
        Scenario s = parse("--ordered", "", "--keys", "50", "--flaky-share", "0.1", "--terminal-share", "0.01");
        assertThat(s.orderedRoutes()).isTrue();
        assertThat(s.keys()).isEqualTo(50);
        assertThat(s.flakyShare()).isEqualTo(0.1);
        assertThat(s.terminalShare()).isEqualTo(0.01);
        assertThat(s.events()).isEqualTo(Scenario.ordered().events());
        assertThat(s.relays()).isEqualTo(4);
        assertThat(s.workers()).isEqualTo(2);
        assertThat(parse().orderedRoutes()).as("the full run").isFalse();
    }

    @Test
    void badOptionsAreRefusedByName() {
        assertThatThrownBy(() -> parse("--small", "", "--ordered", ""))
                .hasMessage("--small and --ordered exclude each other");
        assertThatThrownBy(() -> parse("--keys", "-1")).hasMessage("keys must not be negative, got -1");
        assertThatThrownBy(() -> parse("--keys", "many")).hasMessage("--keys must be a whole number, got 'many'");
        assertThatThrownBy(() -> parse("--flaky-share", "2")).hasMessage("flakyShare must be from 0 to 1, got 2.0");
        assertThatThrownBy(() -> parse("--fail-share", "0.6", "--flaky-share", "0.6"))
                .hasMessage("failShare + flakyShare + terminalShare must be at most 1, got 1.2");
    }

    @Test
    void keysSpreadOverEveryKeyAndEachEventFailsOneWayAtMost() {
        Scenario s = Scenario.orderedSmall();
        Set<String> keys = new HashSet<>();
        LongStream.range(0, s.events()).forEach(seq -> keys.add(s.key(seq)));
        assertThat(keys).hasSize(s.keys());
        assertThat(s.key(7)).isEqualTo(s.key(7));
        long flaky = LongStream.range(0, s.events()).filter(s::flaky).count();
        long terminal = LongStream.range(0, s.events()).filter(s::terminal).count();
        assertThat(flaky).isEqualTo(50); // 5 % of 1,000
        assertThat(terminal).isBetween(9L, 10L); // 1 %, less the ones that are flaky already
        assertThat(LongStream.range(0, s.events()).filter(seq -> s.flaky(seq) && s.terminal(seq)))
                .isEmpty();
    }
}
