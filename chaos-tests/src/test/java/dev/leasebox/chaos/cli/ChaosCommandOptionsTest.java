package dev.leasebox.chaos.cli;

import dev.leasebox.chaos.harness.Granularity;
import dev.leasebox.chaos.scenario.Scenario;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The claim options of {@code leasebox chaos}: accepted where the library accepts them, else one line naming the flags. */
class ChaosCommandOptionsTest {

    private static Granularity parsed(String... args) {
        ChaosCommand command = new ChaosCommand();
        new CommandLine(command).parseArgs(args);
        return command.granularity();
    }

    @Test
    void durationsReadAsEveryCommandReadsThemAndALeaseBelowOneSecondIsRefused() {
        ChaosCommand command = new ChaosCommand();
        CommandLine commandLine = new CommandLine(command);
        commandLine.parseArgs("--lease", "1s500ms", "--duration", "1m30s");
        assertThat(command.lease).hasMillis(1500);
        assertThat(command.duration).hasSeconds(90);
        commandLine.parseArgs("--lease", "500ms");
        assertThatThrownBy(() -> command.checkLease(commandLine)).isInstanceOf(CommandLine.ParameterException.class)
                .hasMessage("--lease must be at least 1s (the workers' --lease-ttl), was 500ms");
        assertThatThrownBy(() -> new CommandLine(new ChaosCommand()).parseArgs("--lease", "10"))
                .isInstanceOf(CommandLine.ParameterException.class).hasMessageContaining("500ms, 30s, 2m");
    }

    @Test
    void nonTerminalReleaseRunsOnRedis() {
        Granularity g = parsed("--backend", "redis", "--scenario", "worker-pause", "--release-after-completion", "non-terminal");
        assertThat(g.releasesNonTerminalOnly()).isTrue();
        assertThat(g.workerArgs()).containsSequence("--release-after-completion", "non-terminal");
    }

    @Test
    void nonTerminalReleaseIsRefusedElsewhereInOneLineNamingTheFlags() {
        for (String backend : new String[]{"zookeeper", "hazelcast"}) {
            assertThatThrownBy(() -> parsed("--backend", backend, "--scenario", "worker-kill",
                    "--release-after-completion", "non-terminal"))
                    .isInstanceOf(CommandLine.ParameterException.class)
                    .hasMessageContaining("--release-after-completion non-terminal").hasMessageContaining("--backend redis")
                    .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
        }
        assertThatThrownBy(() -> parsed("--suite", "--release-after-completion", "non-terminal"))
                .hasMessageContaining("--release-after-completion").hasMessageContaining("--backend");
    }

    @Test
    void releaseInBackgroundIsForRowLeasesThroughAnExternalBackend() {
        assertThat(parsed("--backend", "zookeeper", "--scenario", "worker-kill", "--release-in-background")
                .workerArgs()).contains("--release-in-background");
        assertThatThrownBy(() -> parsed("--backend", "database", "--scenario", "worker-kill", "--release-in-background"))
                .hasMessageContaining("--release-in-background").hasMessageContaining("database backend");
        assertThatThrownBy(() -> parsed("--backend", "redis", "--scenario", "worker-kill", "--release-in-background",
                "--granularity", "partition"))
                .hasMessageContaining("--release-in-background").hasMessageContaining("partition");
        assertThatThrownBy(() -> parsed("--backend", "redis", "--scenario", "worker-kill",
                "--release-after-completion", "sometimes"))
                .hasMessageContaining("always or non-terminal");
    }

    @Test
    void theMigrationScenarioStartsWithRecordedRowClaims() {
        Scenario migration = Scenario.named(Scenario.ROW_TO_PARTITION).orElseThrow();
        assertThat(migration.refusedWith(Granularity.ROW)).isEmpty();
        assertThat(migration.refusedWith(Granularity.partition(false, "lean"))).contains("--granularity partition");
        assertThat(migration.refusedWith(Granularity.LEAN_ROWS)).contains("--claim-mode lean");
        assertThat(Scenario.named("worker-kill").orElseThrow().refusedWith(Granularity.LEAN_ROWS)).isEmpty();
    }
}
