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

    /**
     * Lean claims' cases, beside every scenario with recorded row claims: {@code BACKEND/SCENARIO@VARIANT}, where
     * {@code lean-rows} is {@code --claim-mode lean} and {@code lean-partition} is {@code --lease-granularity
     * partition --partition-claims lean} (unordered; {@code PartitionChaosIT} runs the ordered ones).
     */
    static final List<String> LEAN_CASES = List.of("redis/worker-pause@lean-rows", "zookeeper/worker-pause@lean-rows",
            "redis/coordinator-restart@lean-rows", "database/clock-step@lean-partition");

    static List<Arguments> runs() {
        String only = System.getProperty("chaos.only", "").trim();
        List<Arguments> runs = new ArrayList<>();
        for (String backend : Coordinators.available()) {
            for (Scenario scenario : Scenario.ALL) {
                // a scenario that does not apply to a backend is no case at all (never a skipped one)
                if (scenario.unavailableReason(backend).isEmpty() && selected(only, backend, scenario.name())) {
                    runs.add(Arguments.of(backend, scenario.name()));
                }
            }
        }
        for (String leanCase : LEAN_CASES) {
            String backend = leanCase.substring(0, leanCase.indexOf('/'));
            String scenario = leanCase.substring(leanCase.indexOf('/') + 1);
            if (Coordinators.available().contains(backend) && selected(only, backend, scenario)) {
                runs.add(Arguments.of(backend, scenario));
            }
        }
        if (runs.isEmpty()) {
            throw new IllegalArgumentException("-Dchaos.only=" + only + " matches no case: backends here are "
                    + Coordinators.available() + ", scenarios " + Scenario.names() + "; use BACKEND/SCENARIO[,...]");
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
        Granularity granularity = switch (variant) {
            case "" -> Granularity.ROW;
            case "lean-rows" -> Granularity.LEAN_ROWS;
            case "lean-partition" -> Granularity.partition(false, "lean");
            default -> throw new IllegalArgumentException("unknown variant " + variant);
        };
        RunSettings settings = RunSettings.defaults(reports).withDuration(Duration.ofSeconds(10))
                .withGranularity(granularity);

        ScenarioRunner.Outcome outcome = ScenarioRunner.run(backend, scenario, settings, new PrintStream(System.out, true));
        copyReport(outcome.dir(), outcome.exitCode() != 0);

        assertThat(outcome.summary().get("error")).as("harness error; logs in %s", outcome.dir()).isEqualTo("");
        assertThat(outcome.broken()).as("broken invariants; report %s", outcome.dir().resolve("report.md")).isEmpty();
        assertThat(outcome.exitCode()).isZero();
        assertThat(outcome.summary()).containsEntry("lost", 0).containsEntry("staleCompletionsAccepted", 0)
                .containsEntry("fenceRegressions", 0).containsEntry("unexplainedDuplicates", 0)
                .containsEntry("prematureTakeovers", 0).containsEntry("claimMode", variant.isEmpty() ? "recorded" : "lean");
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
