package dev.leasebox.chaos.evidence;

import dev.leasebox.chaos.check.FinalState;
import dev.leasebox.chaos.cli.ChaosCommand;
import dev.leasebox.chaos.history.FaultEvent;
import dev.leasebox.chaos.history.HistoryEvent;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code leasebox chaos check DIR}'s judgement on hand-built report directories: held, broke, could not check. */
class ReportCheckTest {

    @TempDir
    Path dir;

    private static final String SUMMARY = "{\"backend\":\"database\",\"scenario\":\"worker-kill\",\"passed\":true,"
            + "\"leaseGranularity\":\"row\",\"ordered\":false,\"partitionClaims\":\"\",\"claimMode\":\"recorded\"}\n";

    /** One entry claimed by w1 under fence 5, emitted, delivered; a kill; the tables agree. */
    private void cleanRun() throws IOException {
        Files.writeString(dir.resolve("summary.json"), SUMMARY);
        Files.writeString(dir.resolve("history-w1.jsonl"), String.join("\n",
                new HistoryEvent(1000, 1000, "w1", HistoryEvent.CLAIM, 1, 5, 1000, 4000, "").toJson(),
                HistoryEvent.of(1010, "w1", HistoryEvent.INVOKE, 1, 5, "").toJson(),
                HistoryEvent.of(1011, "w1", HistoryEvent.OK, 1, 5, "").toJson(),
                HistoryEvent.of(1020, "w1", HistoryEvent.COMPLETE_INVOKE, 1, 5, "DELIVERED").toJson(),
                HistoryEvent.of(1021, "w1", HistoryEvent.COMPLETED, 1, 5, "DELIVERED").toJson()) + "\n");
        Files.writeString(dir.resolve("faults.jsonl"), new FaultEvent(1, FaultEvent.KILL, "w2", "test").toJson() + "\n");
        Evidence.writeFinal(dir, new FinalState(List.of(new FinalState.Row(1, "k1", "DELIVERED", 1, 5, 0, "aggregate-1")),
                Map.of("k1", new FinalState.Received("k1", 1, 1, 5, 1))));
        Evidence.writeAudit(dir, List.of(
                new AuditRecord(1, 1, 10, 1_000_000, "PENDING", "PENDING", null, 5L, null, "w1", null, 4_000_000L, 0L, 5L),
                new AuditRecord(2, 1, 11, 1_020_000, "PENDING", "DELIVERED", 5L, null, "w1", null, 4_000_000L, null, 5L, 5L)));
        Evidence.writeDeliveries(dir, List.of(new Delivery(1, "k1", 1, 5L, "w1", 12, 1_011_000)));
    }

    @Test
    void aCleanDirectoryHolds() throws IOException {
        cleanRun();

        ReportCheck.Outcome o = ReportCheck.check(dir);

        assertThat(o.error()).isEmpty();
        assertThat(o.exitCode()).isEqualTo(ReportCheck.HELD);
        assertThat(o.audited()).isTrue();
        assertThat(o.result().entries()).isEqualTo(1);
        assertThat(o.result().violationsByClass()).containsEntry(AuditChecker.STALE_FINALIZATION, 0);
    }

    @Test
    void theFinalStateAndEvidenceRoundTrip() throws IOException {
        cleanRun();

        FinalState end = Evidence.readFinal(dir);

        assertThat(end.rows()).containsExactly(new FinalState.Row(1, "k1", "DELIVERED", 1, 5, 0, "aggregate-1"));
        assertThat(end.inbox()).containsEntry("k1", new FinalState.Received("k1", 1, 1, 5, 1));
        assertThat(Evidence.readAudit(dir)).hasSize(2).last().extracting(AuditRecord::newClaimToken).isNull();
        assertThat(Evidence.readDeliveries(dir)).containsExactly(new Delivery(1, "k1", 1, 5L, "w1", 12, 1_011_000));
    }

    @Test
    void aCompletionOnlyTheAuditSawBreaksTheRun() throws IOException {
        cleanRun();
        // w2 claimed under 9 (recorded on the row) and w1 still finished the row under 5; w1 was killed
        // after the commit, before its history line: only the audit shows it
        Evidence.writeAudit(dir, List.of(
                new AuditRecord(1, 1, 10, 1_000_000, "PENDING", "PENDING", null, 5L, null, "w1", null, 4_000_000L, 0L, 5L),
                new AuditRecord(2, 1, 11, 1_005_000, "PENDING", "PENDING", 5L, 9L, "w1", "w2", 4_000_000L, 4_005_000L, 5L, 9L),
                new AuditRecord(3, 1, 12, 1_006_000, "PENDING", "PENDING", 9L, 5L, "w2", "w2", 4_005_000L, 4_005_000L, 9L, 9L),
                new AuditRecord(4, 1, 13, 1_020_000, "PENDING", "DELIVERED", 5L, null, "w2", null, 4_005_000L, null, 9L, 9L)));

        ReportCheck.Outcome o = ReportCheck.check(dir);

        assertThat(o.exitCode()).isEqualTo(ReportCheck.BROKE);
        assertThat(o.result().brokenInvariants()).anyMatch(b -> b.startsWith("no stale finalization, from the audit (1"))
                .anyMatch(b -> b.startsWith("fences only grow per row, from the audit (1"));
        assertThat(o.result().violationsByClass()).containsEntry(AuditChecker.STALE_FINALIZATION, 1)
                .containsEntry(AuditChecker.FENCE_REGRESSION, 1);
    }

    @Test
    void aDeliveryTheDownstreamNeverRecordedBreaksTheRun() throws IOException {
        cleanRun();
        Evidence.writeDeliveries(dir, List.of());

        ReportCheck.Outcome o = ReportCheck.check(dir);

        assertThat(o.exitCode()).isEqualTo(ReportCheck.BROKE);
        assertThat(o.result().violationsByClass()).containsEntry(AuditChecker.DELIVERED_UNRECEIVED, 1);
    }

    @Test
    void aDirectoryWithoutItsFinalStateCannotBeChecked() throws IOException {
        cleanRun();
        Files.delete(dir.resolve(Evidence.FINAL));

        ReportCheck.Outcome o = ReportCheck.check(dir);

        assertThat(o.exitCode()).isEqualTo(ReportCheck.COULD_NOT_CHECK);
        assertThat(o.error()).contains("final.jsonl");
    }

    @Test
    void aMalformedEvidenceLineCannotBeChecked() throws IOException {
        cleanRun();
        Files.writeString(dir.resolve(Evidence.AUDIT), "{\"seq\":1,\"entry\":\n");

        ReportCheck.Outcome o = ReportCheck.check(dir);

        assertThat(o.exitCode()).isEqualTo(ReportCheck.COULD_NOT_CHECK);
        assertThat(o.error()).contains("audit.jsonl line 1");
    }

    @Test
    void leaseboxChaosCheckExitsWithTheJudgement() throws IOException {
        cleanRun();
        CommandLine chaos = new CommandLine(new ChaosCommand());

        assertThat(chaos.execute("check", dir.toString())).isEqualTo(0);
        assertThat(chaos.execute("check", dir.resolve("nosuch").toString())).isEqualTo(2);
        Files.writeString(dir.resolve("faults.jsonl"), ""); // no fault happened: the run broke
        assertThat(chaos.execute("check", dir.toString())).isEqualTo(1);
    }

    @Test
    void aMissingDirectoryCannotBeChecked() {
        assertThat(ReportCheck.check(dir.resolve("nosuch")).exitCode()).isEqualTo(ReportCheck.COULD_NOT_CHECK);
    }
}
