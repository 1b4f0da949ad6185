package dev.leasebox.chaos.scenario;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The CI suite and the full one: what each contains, so that nothing drops out of both. */
class SuiteTest {

    private static final List<String> ALL_BACKENDS = List.of("database", "redis", "zookeeper", "hazelcast");

    @Test
    void everyCiCaseNamesAScenarioThatAppliesToItsBackend() {
        for (Suite.Case c : Suite.ci(ALL_BACKENDS)) {
            Scenario s = Scenario.named(c.scenario()).orElseThrow(() -> new AssertionError("no scenario " + c));
            assertThat(s.unavailableReason(c.backend())).as(c.toString()).isEmpty();
        }
    }

    @Test
    void ciRunsEveryScenarioOnSomeBackendAndTheFullSuiteHoldsEveryCiCase() {
        assertThat(Suite.ci(ALL_BACKENDS).stream().map(Suite.Case::scenario).distinct())
                .containsExactlyInAnyOrderElementsOf(Scenario.names().stream()
                        .filter(n -> !n.equals("clock-skew")).toList()); // clock-skew: full only (clock-step steps clocks in CI)
        assertThat(Suite.full(ALL_BACKENDS)).containsAll(Suite.ci(ALL_BACKENDS));
        assertThat(Suite.full(ALL_BACKENDS)).contains(new Suite.Case("hazelcast", "db-restart", ""),
                new Suite.Case("redis", "coordinator-failover", "lean-rows"));
        assertThat(Suite.full(ALL_BACKENDS)).doesNotContain(new Suite.Case("database", "partition", ""),
                new Suite.Case("zookeeper", "coordinator-failover", ""));
    }

    @Test
    void theSuitesOnlyHoldAvailableBackends() {
        assertThat(Suite.ci(List.of("database"))).isNotEmpty().allMatch(c -> c.backend().equals("database"));
        assertThat(Suite.full(List.of("database"))).allMatch(c -> c.backend().equals("database"));
    }
}
