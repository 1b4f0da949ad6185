package dev.leasebox.chaos.scenario;

import dev.leasebox.chaos.harness.Granularity;
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
                        // clock-skew: full only (clock-step steps clocks in CI); frozen-taker: full only (docs/chaos.md)
                        .filter(n -> !n.equals("clock-skew") && !n.equals("frozen-taker")).toList());
        assertThat(Suite.full(ALL_BACKENDS)).containsAll(Suite.ci(ALL_BACKENDS));
        assertThat(Suite.full(ALL_BACKENDS)).contains(new Suite.Case("hazelcast", "db-restart", ""),
                new Suite.Case("redis", "coordinator-failover", "lean-rows"));
        assertThat(Suite.full(ALL_BACKENDS)).doesNotContain(new Suite.Case("database", "partition", ""),
                new Suite.Case("zookeeper", "coordinator-failover", ""), new Suite.Case("redis", "short-partition", ""));
        assertThat(Suite.full(ALL_BACKENDS)).contains(new Suite.Case("zookeeper", "short-partition", ""),
                new Suite.Case("hazelcast", "short-partition", ""));
    }

    @Test
    void theReleaseVariantsRunWhereTheLibraryAcceptsThemAndCiHoldsTwo() {
        List<Suite.Case> variants = Suite.full(ALL_BACKENDS).stream()
                .filter(c -> !c.granularity(Granularity.ROW).releasesAsDefault()).toList();
        assertThat(variants).isNotEmpty().allSatisfy(c -> assertThat(c.granularity(Granularity.ROW)
                .releaseRefusedOn(c.backend())).as(c.toString()).isEmpty());
        assertThat(variants).filteredOn(c -> c.granularity(Granularity.ROW).releasesNonTerminalOnly())
                .isNotEmpty().allMatch(c -> c.backend().equals("redis"));
        assertThat(Suite.ci(ALL_BACKENDS)).contains(new Suite.Case("redis", "worker-pause", "non-terminal"),
                new Suite.Case("zookeeper", "worker-kill", "release-in-background"));
        assertThat(Suite.ci(ALL_BACKENDS).stream().filter(variants::contains)).hasSize(2);
    }

    @Test
    void aVariantSetsTheWorkersReleaseOptions() {
        Granularity nonTerminal = Suite.Case.parse("redis/worker-pause@non-terminal").granularity(Granularity.ROW);
        assertThat(nonTerminal.workerArgs()).containsSequence("--release-after-completion", "non-terminal")
                .doesNotContain("--release-in-background", "--claim-mode");
        Granularity background = Suite.Case.parse("zookeeper/worker-kill@release-in-background").granularity(Granularity.ROW);
        assertThat(background.workerArgs()).contains("--release-in-background")
                .doesNotContain("--release-after-completion");
        assertThat(Suite.Case.parse("redis/worker-pause@lean-rows-non-terminal").granularity(Granularity.ROW).workerArgs())
                .containsSequence("--claim-mode", "lean").containsSequence("--release-after-completion", "non-terminal");
    }

    @Test
    void aReportDirectoryNamesTheVariant() {
        assertThat(ScenarioRunner.directoryName("redis", "worker-pause", Granularity.ROW)).isEqualTo("redis-worker-pause");
        assertThat(ScenarioRunner.directoryName("redis", "worker-pause", Granularity.ROW.withRelease("non-terminal", false)))
                .isEqualTo("redis-worker-pause-non-terminal");
        assertThat(ScenarioRunner.directoryName("zookeeper", "worker-kill", Granularity.ROW.withRelease("always", true)))
                .isEqualTo("zookeeper-worker-kill-release-in-background");
        assertThat(ScenarioRunner.directoryName("redis", "worker-kill", Granularity.LEAN_ROWS.withRelease("non-terminal", true)))
                .isEqualTo("redis-worker-kill-lean-non-terminal-release-in-background");
        assertThat(ScenarioRunner.directoryName("database", "clock-step", Granularity.partition(true, "lean")))
                .isEqualTo("database-clock-step-partition-lean-ordered");
    }

    @Test
    void theConnectionFaultsRunInEveryClaimStyleOnEveryExternalBackendAndCiHoldsEachGranularity() {
        for (String scenario : List.of(Scenario.CONNECTION_BLIP, Scenario.RENEWAL_CUT)) {
            for (String backend : List.of("redis", "zookeeper", "hazelcast")) {
                for (String style : List.of("per-row", "per-row-lean", "grouped", "grouped-lean", "partition",
                        "lean-partition")) {
                    assertThat(Suite.full(ALL_BACKENDS)).contains(new Suite.Case(backend, scenario, style));
                }
                assertThat(Suite.full(ALL_BACKENDS)).as("the default style is one of the six")
                        .doesNotContain(new Suite.Case(backend, scenario, ""));
            }
            assertThat(Suite.full(ALL_BACKENDS)).noneMatch(c -> c.backend().equals("database") && c.scenario().equals(scenario));
        }
        List<Granularity> ci = Suite.ci(ALL_BACKENDS).stream().filter(c -> c.scenario().equals(Scenario.CONNECTION_BLIP)
                || c.scenario().equals(Scenario.RENEWAL_CUT)).map(c -> c.granularity(Granularity.ROW)).toList();
        assertThat(ci).anyMatch(Granularity::isPartition)
                .anyMatch(g -> !g.isPartition() && g.rowGrouping().equals(Granularity.PER_ROW))
                .anyMatch(g -> !g.isPartition() && g.rowGrouping().equals(Granularity.GROUPED));
    }

    @Test
    void aRowKeyingVariantSetsTheGroupingOptionAndNamesTheReport() {
        Granularity perRow = Suite.Case.parse("zookeeper/connection-blip@per-row-lean").granularity(Granularity.ROW);
        assertThat(perRow.groupingOptions()).containsEntry("row-groups", "0");
        assertThat(perRow.workerArgs()).containsSequence("--claim-mode", "lean");
        assertThat(Suite.Case.parse("redis/connection-blip@grouped").granularity(Granularity.ROW).groupingOptions())
                .containsEntry("row-groups", "4096");
        assertThat(Suite.Case.parse("redis/connection-blip@partition").granularity(Granularity.ROW).workerArgs())
                .containsSequence("--claim-mode", "recorded");
        assertThat(Granularity.partition(false, "lean").groupingOptions()).isEmpty();
        assertThat(ScenarioRunner.directoryName("zookeeper", "connection-blip", perRow))
                .isEqualTo("zookeeper-connection-blip-lean-per-row");
    }

    @Test
    void theConnectionFaultsRunWithALeaseTheirInterruptionFitsIn() {
        Scenario blip = Scenario.named(Scenario.CONNECTION_BLIP).orElseThrow();
        assertThat(blip.lease(java.time.Duration.ofSeconds(3))).isEqualTo(java.time.Duration.ofSeconds(5));
        assertThat(blip.lease(java.time.Duration.ofSeconds(8))).isEqualTo(java.time.Duration.ofSeconds(8));
        assertThat(Scenario.named("worker-kill").orElseThrow().lease(java.time.Duration.ofSeconds(3)))
                .isEqualTo(java.time.Duration.ofSeconds(3));
    }

    @Test
    void theSuitesOnlyHoldAvailableBackends() {
        assertThat(Suite.ci(List.of("database"))).isNotEmpty().allMatch(c -> c.backend().equals("database"));
        assertThat(Suite.full(List.of("database"))).allMatch(c -> c.backend().equals("database"));
    }
}
