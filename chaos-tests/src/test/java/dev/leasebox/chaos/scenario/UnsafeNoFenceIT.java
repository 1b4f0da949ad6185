package dev.leasebox.chaos.scenario;

import dev.leasebox.chaos.history.Json;
import dev.leasebox.cli.LeaseboxMain;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import dev.leasebox.chaos.evidence.ReportCheck;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The checker's teeth: with {@code --unsafe-no-fence} the workers' completions bypass the token
 * check, and the worker-pause scenario — run through {@code leasebox chaos}, the command users run —
 * must then fail with exit 1 and report stale completions accepted.
 */
class UnsafeNoFenceIT {

    @Test
    void withoutTheFenceTheWorkerPauseScenarioFails(@TempDir Path reports) throws Exception {
        int exit = LeaseboxMain.run("chaos", "--backend", "database", "--scenario", "worker-pause", "--duration", "10s",
                "--unsafe-no-fence", "--report-dir", reports.toString());

        Path dir = reports.resolve("database-worker-pause");
        Map<String, Object> summary = Json.parseObject(Files.readString(dir.resolve("summary.json")).trim());
        assertThat(summary).containsEntry("error", "").containsEntry("unsafeNoFence", true).containsEntry("passed", false);
        assertThat((Long) summary.get("staleCompletionsAccepted")).as("report %s", dir.resolve("report.md")).isPositive();
        assertThat(exit).isEqualTo(1);
        assertThat(Files.readString(dir.resolve("report.md"))).contains("no stale finalization");
        // the database's audit shows it too, without any worker's history
        assertThat((Long) summary.get("violations.auditStaleFinalization")).as("report %s", dir.resolve("report.md")).isPositive();
        assertThat(ReportCheck.check(dir).exitCode()).isEqualTo(ReportCheck.BROKE);
    }
}
