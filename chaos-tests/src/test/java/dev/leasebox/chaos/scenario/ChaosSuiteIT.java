package dev.leasebox.chaos.scenario;

import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import dev.leasebox.chaos.harness.Granularity;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.leasebox.chaos.evidence.Evidence;
import dev.leasebox.chaos.evidence.ReportCheck;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The CI chaos suite ({@link Suite#ci}: every scenario, each on the backends where it reaches different code;
 * {@code -Dchaos.full=true} for every scenario on every backend), with real worker JVMs,
 * real coordinator servers on free ports and PostgreSQL at 127.0.0.1:5432 (a fresh schema per run).
 * Each run must hold every invariant, and its fault must really have happened. A scenario that
 * does not apply to a backend (no coordinator apart from the database) is no case; one whose tool is
 * missing here (nft, libfaketime, PostgreSQL's binaries) fails with one line saying what to install.
 *
 * <p>{@code -Dchaos.only=BACKEND/SCENARIO[,...]} runs only the matching cases ({@code *} matches any
 * backend or scenario, a bare {@code BACKEND} every scenario on it), e.g.
 * {@code -Dchaos.only=hazelcast/clock-skew} or {@code -Dchaos.only=hazelcast/clock-skew,redis}. A filter that
 * matches no available case fails the run rather than passing with nothing run.
 */
class ChaosSuiteIT {

    /**
     * The CI cases ({@link Suite#ci}); with {@code -Dchaos.full=true} every case of {@code leasebox chaos --suite
     * --full} ({@link Suite#full}). {@code -Dchaos.only} selects among all of the full suite's cases, so a case
     * outside CI can be run alone the same way.
     */
    static List<Arguments> runs() {
        String only = System.getProperty("chaos.only", "").trim();
        boolean full = Boolean.getBoolean("chaos.full") || !only.isEmpty();
        List<Arguments> runs = new ArrayList<>();
        List<String> available = Coordinators.available();
        for (Suite.Case c : full ? Suite.full(available) : Suite.ci(available)) {
            if (selected(only, c.backend(), c.caseName())) {
                runs.add(Arguments.of(c.backend(), c.caseName()));
            }
        }
        if (runs.isEmpty()) {
            throw new IllegalArgumentException("-Dchaos.only=" + only + " matches no case: backends here are "
                    + available + ", scenarios " + Scenario.names() + "; use BACKEND/SCENARIO[,...]");
        }
        return runs;
    }

    /**
     * Whether {@code -Dchaos.only} (empty: everything) selects this case. {@code scenario} may carry a variant
     * ({@code worker-pause@lean-rows}): an item naming the scenario alone selects every variant of it, an item
     * with {@code @VARIANT} only that one.
     */
    static boolean selected(String only, String backend, String scenario) {
        if (only.isEmpty()) {
            return true;
        }
        String base = scenario.contains("@") ? scenario.substring(0, scenario.indexOf('@')) : scenario;
        for (String item : only.split(",")) {
            String[] parts = item.trim().split("/", 2);
            boolean backendMatches = parts[0].equals("*") || parts[0].equals(backend);
            boolean scenarioMatches = parts.length == 1 || parts[1].equals("*") || parts[1].equals(scenario)
                    || parts[1].equals(base);
            if (backendMatches && scenarioMatches) {
                return true;
            }
        }
        return false;
    }

    @ParameterizedTest(name = "{1} on {0}")
    @MethodSource("runs")
    void everyInvariantHoldsUnderTheFault(String backend, String caseName, @TempDir Path reports) throws Exception {
        String scenarioName = caseName.contains("@") ? caseName.substring(0, caseName.indexOf('@')) : caseName;
        String variant = caseName.contains("@") ? caseName.substring(caseName.indexOf('@') + 1) : "";
        Scenario scenario = Scenario.named(scenarioName).orElseThrow();
        Granularity granularity = new Suite.Case(backend, scenarioName, variant).granularity(Granularity.ROW);
        RunSettings settings = RunSettings.defaults(reports).withDuration(Duration.ofSeconds(10))
                .withGranularity(granularity);

        ScenarioRunner.Outcome outcome = ScenarioRunner.run(backend, scenario, settings, new PrintStream(System.out, true));
        copyReport(outcome.dir(), outcome.exitCode() != 0);

        assertThat(outcome.summary().get("error")).as("harness error; logs in %s", outcome.dir()).isEqualTo("");
        assertThat(outcome.broken()).as("broken invariants; report %s", outcome.dir().resolve("report.md")).isEmpty();
        assertThat(outcome.exitCode()).isZero();
        assertThat(outcome.summary()).containsEntry("lost", 0).containsEntry("staleCompletionsAccepted", 0)
                .containsEntry("fenceRegressions", 0).containsEntry("unexplainedDuplicates", 0)
                .containsEntry("prematureTakeovers", 0).containsEntry("claimMode", granularity.isLean() ? "lean" : "recorded")
                .containsEntry("variant", ScenarioRunner.variant(granularity).replaceFirst("^-", ""));
        assertThat((Integer) outcome.summary().get("faultsInjected")).isPositive();
        assertThat((Integer) outcome.summary().get("delivered")).isPositive();
        assertThat(outcome.dir().resolve("summary.json")).exists();
        assertThat(Files.readString(outcome.dir().resolve("timeline.html"))).contains("<svg");
        assertThat(outcome.dir().resolve(Evidence.AUDIT)).isNotEmptyFile();
        assertThat(outcome.dir().resolve(Evidence.DELIVERIES)).isNotEmptyFile();
        assertThat(outcome.dir().resolve(Evidence.FINAL)).isNotEmptyFile();
        ReportCheck.Outcome offline = ReportCheck.check(outcome.dir());
        assertThat(offline.error()).isEmpty();
        assertThat(offline.exitCode()).as("re-judged from the report directory's files alone").isZero();
        assertThat(offline.result().entries()).isEqualTo(outcome.summary().get("entries"));
    }

    /**
     * Keeps the last run's reports where docs/chaos.md's figures come from (target/chaos-report); a run that did not
     * pass keeps everything (histories and process logs too), since its temporary directory is deleted.
     */
    private static void copyReport(Path dir, boolean everything) throws Exception {
        Path keep = Path.of("target", "chaos-report", dir.getFileName().toString());
        Files.createDirectories(keep);
        List<String> names = new ArrayList<>(List.of("summary.json", "report.md", "timeline.html", "faults.jsonl"));
        if (everything) {
            try (var files = Files.list(dir)) {
                files.filter(Files::isRegularFile).map(p -> p.getFileName().toString()).filter(n -> !names.contains(n))
                        .forEach(names::add);
            }
        }
        for (String name : names) {
            if (Files.exists(dir.resolve(name))) {
                Files.copy(dir.resolve(name), keep.resolve(name), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            }
        }
    }
}
