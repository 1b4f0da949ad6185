package dev.leasebox.chaos.scenario;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The short chaos suite: every scenario on every backend available here, with real worker JVMs,
 * real coordinator servers on free ports and PostgreSQL at 127.0.0.1:5432 (a fresh schema per run).
 * Each run must hold every invariant, and its fault must really have happened. A scenario that
 * cannot run here (no nft, no libfaketime, or no coordinator apart from the database) is skipped
 * with the reason.
 *
 * <p>{@code -Dchaos.only=BACKEND/SCENARIO[,...]} runs only the matching cases ({@code *} matches any
 * backend or scenario, a bare {@code BACKEND} every scenario on it), e.g.
 * {@code -Dchaos.only=hazelcast/clock-skew} or {@code -Dchaos.only=hazelcast/clock-skew,redis}. A filter that
 * matches no available case fails the run rather than passing with nothing run.
 */
class ChaosSuiteIT {

    static List<Arguments> runs() {
        String only = System.getProperty("chaos.only", "").trim();
        List<Arguments> runs = new ArrayList<>();
        for (String backend : Coordinators.available()) {
            for (Scenario scenario : Scenario.ALL) {
                if (selected(only, backend, scenario.name())) {
                    runs.add(Arguments.of(backend, scenario.name()));
                }
            }
        }
        if (runs.isEmpty()) {
            throw new IllegalArgumentException("-Dchaos.only=" + only + " matches no case: backends here are "
                    + Coordinators.available() + ", scenarios " + Scenario.names() + "; use BACKEND/SCENARIO[,...]");
        }
        return runs;
    }

    /** Whether {@code -Dchaos.only} (empty: everything) selects this case. */
    static boolean selected(String only, String backend, String scenario) {
        if (only.isEmpty()) {
            return true;
        }
        for (String item : only.split(",")) {
            String[] parts = item.trim().split("/", 2);
            boolean backendMatches = parts[0].equals("*") || parts[0].equals(backend);
            boolean scenarioMatches = parts.length == 1 || parts[1].equals("*") || parts[1].equals(scenario);
            if (backendMatches && scenarioMatches) {
                return true;
            }
        }
        return false;
    }

    @ParameterizedTest(name = "{1} on {0}")
    @MethodSource("runs")
    void everyInvariantHoldsUnderTheFault(String backend, String scenarioName, @TempDir Path reports) throws Exception {
        Scenario scenario = Scenario.named(scenarioName).orElseThrow();
        String reason = scenario.unavailableReason(backend);
        Assumptions.assumeTrue(reason.isEmpty(), () -> scenarioName + " on " + backend + ": " + reason);
        RunSettings settings = RunSettings.defaults(reports).withDuration(Duration.ofSeconds(10));

        ScenarioRunner.Outcome outcome = ScenarioRunner.run(backend, scenario, settings, new PrintStream(System.out, true));

        assertThat(outcome.summary().get("error")).as("harness error; logs in %s", outcome.dir()).isEqualTo("");
        assertThat(outcome.broken()).as("broken invariants; report %s", outcome.dir().resolve("report.md")).isEmpty();
        assertThat(outcome.exitCode()).isZero();
        assertThat(outcome.summary()).containsEntry("lost", 0).containsEntry("staleCompletionsAccepted", 0)
                .containsEntry("fenceRegressions", 0).containsEntry("unexplainedDuplicates", 0);
        assertThat((Integer) outcome.summary().get("faultsInjected")).isPositive();
        assertThat((Integer) outcome.summary().get("delivered")).isPositive();
        assertThat(outcome.dir().resolve("summary.json")).exists();
        assertThat(Files.readString(outcome.dir().resolve("timeline.html"))).contains("<svg");
        copyReport(outcome.dir());
    }

    /** Keeps the last run's reports where docs/chaos.md's figures come from (target/chaos-report). */
    private static void copyReport(Path dir) throws Exception {
        Path keep = Path.of("target", "chaos-report", dir.getFileName().toString());
        Files.createDirectories(keep);
        for (String name : List.of("summary.json", "report.md", "timeline.html", "faults.jsonl")) {
            if (Files.exists(dir.resolve(name))) {
                Files.copy(dir.resolve(name), keep.resolve(name), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            }
        }
    }
}
