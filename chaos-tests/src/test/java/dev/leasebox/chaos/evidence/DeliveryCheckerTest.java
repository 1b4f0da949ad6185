package dev.leasebox.chaos.evidence;

import dev.leasebox.chaos.check.FinalState;
import dev.leasebox.chaos.history.FaultEvent;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The deliveries judged against the audit, the fault log and the final rows, on hand-built evidence: one clean run
 * that passes, and one failing input per violation class. Times are seconds on the database's clock (µs inside).
 */
class DeliveryCheckerTest {

    private static final DeliveryChecker.Mode RECORDED = DeliveryChecker.Mode.of("database", false, false);
    private static final DeliveryChecker.Mode LEAN_ROWS = DeliveryChecker.Mode.of("redis", true, true);
    private static final DeliveryChecker.Mode LEAN_PARTITION = DeliveryChecker.Mode.of("redis", true, false);

    private final List<AuditRecord> audit = new ArrayList<>();
    private final List<Delivery> deliveries = new ArrayList<>();
    private final List<FaultEvent> faults = new ArrayList<>();
    private final List<FinalState.Row> rows = new ArrayList<>();
    private long seq;

    private static long s(double seconds) {
        return (long) (seconds * 1_000_000);
    }

    /** A recorded claim of {@code entry} under {@code token} by {@code owner} at {@code at} s, expiring {@code lease} s later. */
    private void claim(long entry, double at, Long oldToken, Double oldExpires, long token, String owner, double lease) {
        seq++;
        audit.add(new AuditRecord(seq, entry, seq, s(at), "PENDING", "PENDING", oldToken, token, null, owner,
                oldExpires == null ? null : s(oldExpires), s(at + lease), oldToken == null ? 0L : oldToken, token));
    }

    /** A recorded completion of {@code entry}'s claim {@code token} at {@code at} s, to {@code status}. */
    private void complete(long entry, double at, long token, double expires, String status) {
        seq++;
        audit.add(new AuditRecord(seq, entry, seq, s(at), "PENDING", status, token, null, "w", null, s(expires), null,
                token, token));
    }

    /** A lean completion: no claim on the row, the mark set to the token. */
    private void leanComplete(long entry, double at, long oldMark, long token, String status) {
        seq++;
        audit.add(new AuditRecord(seq, entry, seq, s(at), "PENDING", status, null, null, null, null, null, null,
                oldMark, token));
    }

    private void delivery(long entry, double at, long fence, String worker) {
        deliveries.add(new Delivery(deliveries.size() + 1, "chaos-" + entry, entry, fence, worker, 1000 + deliveries.size(),
                s(at)));
    }

    private void fault(double at, String kind) {
        faults.add(new FaultEvent((long) (at * 1000), kind, "x", ""));
    }

    private void row(long id, String status) {
        rows.add(new FinalState.Row(id, "chaos-" + id, status, 1, 0, 0));
    }

    private AuditChecker.Result check(DeliveryChecker.Mode mode) {
        return DeliveryChecker.check(audit, deliveries, faults, new FinalState(rows, Map.of()), mode);
    }

    private static void assertOnly(AuditChecker.Result r, String kind, int count) {
        assertThat(r.byClass()).containsEntry(kind, count);
        r.byClass().forEach((k, v) -> {
            if (!k.equals(kind)) {
                assertThat(v).as(k).isZero();
            }
        });
        assertThat(r.violations()).isNotEmpty().allMatch(v -> v.startsWith("[" + kind + "]"));
    }

    @Test
    void aCleanRecordedRunWithATakeoverAfterExpiryPasses() {
        claim(1, 1.0, null, null, 5, "w1", 3);
        delivery(1, 1.5, 5, "w1");
        claim(1, 4.5, 5L, 4.0, 9, "w2", 3); // w1's claim expired at 4.0 (database clock); w2 takes over
        delivery(1, 5.0, 9, "w2");
        complete(1, 5.2, 9, 7.5, "DELIVERED");
        row(1, "DELIVERED");

        AuditChecker.Result r = check(RECORDED);

        assertThat(r.total()).isZero();
        assertThat(r.byClass().keySet()).containsAll(DeliveryChecker.ALL).contains(DeliveryChecker.FROZEN_SENDER);
    }

    @Test
    void oneFencePresentedByTwoWorkersIsAViolation() {
        // the B2 symptom: a lock re-entered with the same fence by another worker (lean: nothing on the row)
        delivery(1, 1.0, 7, "w1");
        delivery(1, 2.0, 7, "w2");
        leanComplete(1, 2.5, 0, 7, "DELIVERED");
        fault(1.5, FaultEvent.PAUSE);
        row(1, "DELIVERED");

        AuditChecker.Result r = check(LEAN_PARTITION);

        assertThat(r.byClass()).containsEntry(DeliveryChecker.FENCE_TWO_WORKERS, 1)
                .containsEntry(DeliveryChecker.SUPERSEDED_FENCE, 0).containsEntry(DeliveryChecker.FAILED_BUT_DELIVERED, 0);
        assertThat(r.violations().get(0)).startsWith("[deliveryFenceTwoWorkers] entry 1: fence 7 presented by w1")
                .contains("and by w2");
    }

    @Test
    void theSameLeanFenceAcrossACoordinatorDataLossIsExcused() {
        delivery(1, 1.0, 7, "w1");
        fault(1.5, FaultEvent.COORDINATOR_DATA_LOSS);
        delivery(1, 2.0, 7, "w2");
        row(1, "DELIVERED");

        assertThat(check(LEAN_PARTITION).byClass()).containsEntry(DeliveryChecker.FENCE_TWO_WORKERS, 0);
    }

    @Test
    void aDeliveryUnderAFenceTheRowsMarkHadPassedIsAViolation() {
        // lean rows: w2 (fence 9) finished the row; then the zombie w1's emission under fence 5 arrives
        delivery(1, 1.0, 9, "w2");
        leanComplete(1, 1.2, 0, 9, "DELIVERED");
        fault(0.5, FaultEvent.PAUSE);
        delivery(1, 2.0, 5, "w1");
        row(1, "DELIVERED");

        assertOnly(check(LEAN_ROWS), DeliveryChecker.SUPERSEDED_FENCE, 1);
    }

    @Test
    void leanRowsMayNotDeliverAtTheMarkButALeanPartitionReReadMay() {
        leanComplete(1, 1.0, 0, 7, "RETRYABLE_FAILURE"); // the grant's first read failed: the mark is 7
        delivery(1, 2.0, 7, "w1"); // the same grant reads again with the same token
        row(1, "DELIVERED");

        assertThat(check(LEAN_PARTITION).byClass()).containsEntry(DeliveryChecker.SUPERSEDED_FENCE, 0);
        assertThat(check(LEAN_ROWS).byClass()).containsEntry(DeliveryChecker.SUPERSEDED_FENCE, 1);
    }

    @Test
    void aDeliveryWithoutTheRowsLiveClaimIsAViolationByTheDatabasesClock() {
        claim(1, 1.0, null, null, 5, "w1", 3);
        delivery(1, 4.5, 5, "w1"); // the claim ended at 4.0 by the database's clock: emitted after its expiry
        complete(1, 4.7, 5, 4.0, "DELIVERED");
        claim(2, 1.0, null, null, 6, "w1", 3);
        delivery(2, 0.5, 6, "w1"); // received before any claim of the row was committed
        complete(2, 1.1, 6, 4.0, "DELIVERED");
        row(1, "DELIVERED");
        row(2, "DELIVERED");

        AuditChecker.Result r = check(RECORDED);

        assertOnly(r, DeliveryChecker.EMIT_WITHOUT_CLAIM, 2);
        assertThat(r.violations()).anyMatch(v -> v.contains("entry 1") && v.contains("its claim had expired"))
                .anyMatch(v -> v.contains("entry 2") && v.contains("no claim of the row was committed before"));
        // a worker's expiry on this machine is judged with a little tolerance, the database's with none
        assertThat(DeliveryChecker.check(audit, List.of(new Delivery(9, "chaos-1", 1, 5L, "w1", 9, s(4.1))), faults,
                new FinalState(rows, Map.of()), DeliveryChecker.Mode.of("redis", false, false)).total()).isZero();
    }

    @Test
    void aDeliveryLandingAfterTheRowsExpiryIsExcusedOnlyByADatabaseFaultDuringTheClaim() {
        claim(1, 1.0, null, null, 5, "w1", 3);
        delivery(1, 4.5, 5, "w1"); // the provider (the same PostgreSQL) was down: the insert landed after 4.0
        complete(1, 4.7, 5, 4.0, "DELIVERED");
        row(1, "DELIVERED");
        fault(0.5, FaultEvent.DB_RESTART); // before the claim: explains nothing

        assertThat(check(RECORDED).byClass()).containsEntry(DeliveryChecker.EMIT_WITHOUT_CLAIM, 1);
        fault(1.2, FaultEvent.DB_RESTART);
        assertThat(check(RECORDED).byClass()).containsEntry(DeliveryChecker.EMIT_WITHOUT_CLAIM, 0);
    }

    @Test
    void aFrozenSendersLateDeliveryIsReportedNotAViolationAndItsRepeatIsExplainedByExpiry() {
        claim(1, 1.0, null, null, 5, "w1", 3);
        claim(1, 4.5, 5L, 4.0, 9, "w2", 3); // w1 frozen past its lease: w2 takes over
        delivery(1, 4.8, 5, "w1"); // w1's emission, handed over before the freeze, lands after the takeover
        delivery(1, 5.0, 9, "w2");
        complete(1, 5.2, 9, 7.5, "DELIVERED");
        row(1, "DELIVERED");

        AuditChecker.Result unfrozen = check(RECORDED);
        assertThat(unfrozen.byClass()).containsEntry(DeliveryChecker.SUPERSEDED_FENCE, 1)
                .containsEntry(DeliveryChecker.EMIT_WITHOUT_CLAIM, 1).containsEntry(DeliveryChecker.UNEXPLAINED_DUPLICATE, 0);

        faults.add(new FaultEvent(1_500, FaultEvent.PAUSE, "w1", "SIGSTOP"));
        faults.add(new FaultEvent(4_700, FaultEvent.RESUME, "w1", "SIGCONT"));
        AuditChecker.Result frozen = check(RECORDED);
        assertThat(frozen.byClass()).containsEntry(DeliveryChecker.FROZEN_SENDER, 1);
        assertThat(frozen.byClass().entrySet()).allMatch(e -> e.getValue() == 0
                || DeliveryChecker.REPORTED_ONLY.contains(e.getKey()));
    }

    @Test
    void aFrozenSendersDeliveryLandingAfterTheTakersIsReportedOnceNotAsAnUnexplainedRepeat() {
        claim(1, 1.0, null, null, 5, "w1", 3);
        claim(1, 4.5, 5L, 4.0, 9, "w2", 3); // w1 frozen past its lease: w2 takes over
        delivery(1, 5.0, 9, "w2");
        delivery(1, 5.1, 5, "w1"); // w1 resumed at 5.05: its emission under fence 5 lands after w2's
        complete(1, 5.2, 9, 7.5, "DELIVERED");
        row(1, "DELIVERED");
        faults.add(new FaultEvent(1_500, FaultEvent.PAUSE, "w1", "SIGSTOP"));
        faults.add(new FaultEvent(5_050, FaultEvent.RESUME, "w1", "SIGCONT"));

        AuditChecker.Result r = check(RECORDED);

        assertThat(r.byClass()).containsEntry(DeliveryChecker.FROZEN_SENDER, 1)
                .containsEntry(DeliveryChecker.UNEXPLAINED_DUPLICATE, 0);
        assertThat(r.byClass().entrySet()).allMatch(e -> e.getValue() == 0
                || DeliveryChecker.REPORTED_ONLY.contains(e.getKey()));
    }

    @Test
    void aRepeatDeliveryUnderTheSameLiveClaimIsTwoEmissionsUnderOneFence() {
        claim(1, 1.0, null, null, 5, "w1", 3);
        delivery(1, 1.5, 5, "w1");
        delivery(1, 1.6, 5, "w1"); // again under the same live claim, no provider fault: nothing explains it
        complete(1, 2.0, 5, 4.0, "DELIVERED");
        row(1, "DELIVERED");

        assertOnly(check(RECORDED), DeliveryChecker.FENCE_REPEATED, 1);
    }

    @Test
    void repeatsAreExplainedByAProviderFaultWindowAnExpiryOrARelease() {
        fault(1.0, FaultEvent.PROVIDER_FAULTS);
        claim(1, 1.0, null, null, 5, "w1", 3);
        delivery(1, 1.5, 5, "w1"); // a timeout after delivering: w1 retries
        complete(1, 1.9, 5, 4.0, "RETRYABLE_FAILURE");
        claim(1, 2.0, null, null, 6, "w1", 3);
        delivery(1, 2.1, 6, "w1");
        complete(1, 2.2, 6, 5.0, "DELIVERED");
        fault(3.0, FaultEvent.PROVIDER_HEALTHY);
        claim(2, 5.0, null, null, 7, "w1", 3);
        delivery(2, 5.5, 7, "w1");
        claim(2, 8.5, 7L, 8.0, 8, "w2", 3); // taken over after w1's claim expired
        delivery(2, 9.0, 8, "w2");
        complete(2, 9.1, 8, 11.5, "DELIVERED");
        claim(3, 5.0, null, null, 9, "w1", 3);
        delivery(3, 5.5, 9, "w1");
        seq++; // w1 released the claim (its lease lost) without finishing the row
        audit.add(new AuditRecord(seq, 3, seq, s(6.0), "PENDING", "PENDING", 9L, null, "w1", null, s(8.0), null, 9L, 9L));
        claim(3, 6.5, null, null, 10, "w2", 3);
        delivery(3, 7.0, 10, "w2");
        complete(3, 7.1, 10, 9.5, "DELIVERED");
        row(1, "DELIVERED");
        row(2, "DELIVERED");
        row(3, "DELIVERED");

        assertThat(check(RECORDED).total()).isZero();
    }

    @Test
    void aLeanRepeatNeedsAFaultThatCanEndALease() {
        delivery(1, 1.0, 5, "w1");
        delivery(1, 2.0, 6, "w2");
        leanComplete(1, 2.1, 0, 6, "DELIVERED");
        row(1, "DELIVERED");

        assertOnly(check(LEAN_ROWS), DeliveryChecker.UNEXPLAINED_DUPLICATE, 1);
        // its sender's own report that it lost the claim explains a repeat under a higher fence, not a lower one
        List<DeliveryChecker.ReportedLoss> lost = List.of(new DeliveryChecker.ReportedLoss(1, "w1", 1500));
        assertThat(DeliveryChecker.check(audit, deliveries, faults, new FinalState(rows, Map.of()), LEAN_ROWS, lost)
                .total()).isZero();
        assertThat(DeliveryChecker.check(audit, deliveries, faults, new FinalState(rows, Map.of()), LEAN_ROWS,
                List.of(new DeliveryChecker.ReportedLoss(1, "w2", 1500))).total()).isEqualTo(1);
        fault(0.5, FaultEvent.KILL);
        assertThat(check(LEAN_ROWS).total()).isZero();
    }

    @Test
    void aLeanPartitionGrantReReadingARowItGaveUpUnderAHigherTokenIsExplainedByItsOwnLossReport() {
        delivery(1, 1.0, 7, "w1");
        delivery(1, 4.5, 8, "w1"); // the same grant, a token derived above the first: it abandoned and read again
        leanComplete(1, 4.7, 0, 8, "DELIVERED");
        row(1, "DELIVERED");
        List<DeliveryChecker.ReportedLoss> abandoned = List.of(new DeliveryChecker.ReportedLoss(1, "w1", 1200));

        assertOnly(check(LEAN_PARTITION), DeliveryChecker.UNEXPLAINED_DUPLICATE, 1);
        assertThat(DeliveryChecker.check(audit, deliveries, faults, new FinalState(rows, Map.of()), LEAN_PARTITION,
                abandoned).total()).isZero();
    }

    @Test
    void twoEmissionsOfOneEntryUnderOneFenceAreAViolationWhateverExplainsTheRepeat() {
        // one worker emits entry 1 twice under fence 7: the grant handed the row out again under the token it had
        // already emitted (after a connection blip, or a retry); neither its own loss report, nor a provider fault
        // window, nor a fault that can end a lease makes a second emission under one token right
        delivery(1, 1.0, 7, "w1");
        delivery(1, 4.5, 7, "w1");
        leanComplete(1, 4.7, 0, 7, "DELIVERED");
        row(1, "DELIVERED");
        fault(0.5, FaultEvent.PROVIDER_FAULTS);
        fault(2.0, FaultEvent.CONNECTION_CUT);
        List<DeliveryChecker.ReportedLoss> abandoned = List.of(new DeliveryChecker.ReportedLoss(1, "w1", 1200));

        for (DeliveryChecker.Mode mode : List.of(LEAN_PARTITION, LEAN_ROWS, RECORDED)) {
            AuditChecker.Result r = DeliveryChecker.check(audit, deliveries, faults, new FinalState(rows, Map.of()), mode,
                    abandoned);
            assertThat(r.byClass()).as("%s", mode).containsEntry(DeliveryChecker.FENCE_REPEATED, 1)
                    .containsEntry(DeliveryChecker.UNEXPLAINED_DUPLICATE, 0);
            assertThat(r.violations()).as("%s", mode).anyMatch(v -> v.startsWith(
                    "[deliveryFenceRepeated] entry 1: emitted twice under fence 7 by w1"));
        }
    }

    @Test
    void theSameLeanFenceRepeatedAcrossACoordinatorDataLossIsExcused() {
        delivery(1, 1.0, 7, "w1");
        fault(1.5, FaultEvent.COORDINATOR_DATA_LOSS);
        delivery(1, 2.0, 7, "w1");
        row(1, "DELIVERED");

        assertThat(check(LEAN_ROWS).byClass()).containsEntry(DeliveryChecker.FENCE_REPEATED, 0);
        assertThat(check(RECORDED).byClass()).containsEntry(DeliveryChecker.FENCE_REPEATED, 1);
    }

    @Test
    void aDeadLetteredRowTheDownstreamReceivedIsAViolationUnlessAFaultMadeItAmbiguous() {
        claim(1, 1.0, null, null, 5, "w1", 3);
        delivery(1, 1.5, 5, "w1");
        complete(1, 1.6, 5, 4.0, "DEAD_LETTERED");
        row(1, "DEAD_LETTERED");
        claim(2, 1.0, null, null, 6, "w1", 3);
        complete(2, 1.6, 6, 4.0, "DEAD_LETTERED"); // never received: a true dead letter
        row(2, "DEAD_LETTERED");

        AuditChecker.Result r = check(RECORDED);
        assertOnly(r, DeliveryChecker.FAILED_BUT_DELIVERED, 1);
        assertThat(r.violations().get(0)).startsWith("[deliveredButFailed] entry 1");

        fault(1.0, FaultEvent.PROVIDER_FAULTS); // a timeout after delivering: the worker could not know
        assertThat(check(RECORDED).total()).isZero();
    }

    @Test
    void aDatabaseFaultRightAfterADeliveryMakesItAmbiguous() {
        Delivery d = new Delivery(1, "chaos-1", 1, 5L, "w1", 1, s(1.0));
        assertThat(DeliveryChecker.ambiguous(d, List.of(new FaultEvent(1_500, FaultEvent.DB_CONNECTIONS_KILLED, "pg", "")))).isTrue();
        assertThat(DeliveryChecker.ambiguous(d, List.of(new FaultEvent(500, FaultEvent.DB_RESTART, "pg", "")))).isFalse();
        assertThat(DeliveryChecker.ambiguous(d, List.of(new FaultEvent(12_000, FaultEvent.DB_RESTART, "pg", "")))).isFalse();
    }

    @Test
    void aReceiptStampedInMillisecondsIsJudgedAtItsMostFavourableInstant() {
        // claimed at 10.0004 s; Kafka stamped the append 10.000 s (its millisecond), completed at 10.0009 s
        claim(1, 10.0004, null, null, 7, "w1", 3);
        delivery(1, 10.000, 7, "w1");
        complete(1, 10.0009, 7, 13.0004, "DELIVERED");
        row(1, "DELIVERED");
        assertOnly(check(RECORDED), DeliveryChecker.EMIT_WITHOUT_CLAIM, 1);
        assertThat(check(RECORDED.withReceiptResolution(1_000)).total()).isZero();
    }

    @Test
    void theResolutionExcusesNothingOutsideItsStep() {
        claim(1, 10.0004, null, null, 7, "w1", 3);
        complete(1, 10.0006, 7, 13.0004, "DELIVERED");
        delivery(1, 10.002, 7, "w1"); // two milliseconds after the row was finished
        row(1, "DELIVERED");
        assertOnly(check(RECORDED.withReceiptResolution(1_000)), DeliveryChecker.EMIT_WITHOUT_CLAIM, 1);
    }
}
