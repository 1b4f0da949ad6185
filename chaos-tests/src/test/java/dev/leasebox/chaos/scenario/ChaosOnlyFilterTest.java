package dev.leasebox.chaos.scenario;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code -Dchaos.only} as {@link ChaosSuiteIT#selected} reads it. */
class ChaosOnlyFilterTest {

    @Test
    void emptySelectsEveryCase() {
        assertThat(ChaosSuiteIT.selected("", "redis", "partition")).isTrue();
    }

    @Test
    void backendAndScenarioMustBothMatch() {
        assertThat(ChaosSuiteIT.selected("hazelcast/clock-skew", "hazelcast", "clock-skew")).isTrue();
        assertThat(ChaosSuiteIT.selected("hazelcast/clock-skew", "redis", "clock-skew")).isFalse();
        assertThat(ChaosSuiteIT.selected("hazelcast/clock-skew", "hazelcast", "worker-kill")).isFalse();
    }

    @Test
    void wildcardsBareBackendsAndLists() {
        assertThat(ChaosSuiteIT.selected("*/clock-skew", "database", "clock-skew")).isTrue();
        assertThat(ChaosSuiteIT.selected("*/clock-skew", "database", "worker-kill")).isFalse();
        assertThat(ChaosSuiteIT.selected("redis", "redis", "partition")).isTrue();
        assertThat(ChaosSuiteIT.selected("redis/*", "redis", "partition")).isTrue();
        assertThat(ChaosSuiteIT.selected("database/worker-kill, hazelcast/clock-skew", "hazelcast", "clock-skew")).isTrue();
        assertThat(ChaosSuiteIT.selected("database/worker-kill, hazelcast/clock-skew", "database", "clock-skew")).isFalse();
    }

    @Test
    void aScenarioSelectsItsVariantsAndAVariantOnlyItself() {
        assertThat(ChaosSuiteIT.selected("redis/worker-pause", "redis", "worker-pause@lean-rows")).isTrue();
        assertThat(ChaosSuiteIT.selected("redis/worker-pause@lean-rows", "redis", "worker-pause@lean-rows")).isTrue();
        assertThat(ChaosSuiteIT.selected("redis/worker-pause@lean-rows", "redis", "worker-pause")).isFalse();
    }
}
