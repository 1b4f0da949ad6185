package dev.leasebox.chaos.evidence;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The audit judged alone, on hand-built audits: a clean life passes, a stale finalization and fence regressions fail. */
class AuditCheckerTest {

    private final List<AuditRecord> audit = new ArrayList<>();
    private long seq;

    /** A change of row {@code entry}: status, claim token, owner and fence high-water, old then new. */
    private void change(long entry, String oldStatus, String newStatus, Long oldToken, Long newToken, String oldOwner,
                        String newOwner, long oldFence, long newFence) {
        seq++;
        audit.add(new AuditRecord(seq, entry, 100 + seq, 1_000_000 * seq, oldStatus, newStatus, oldToken, newToken,
                oldOwner, newOwner, null, null, oldFence, newFence));
    }

    /** The database backend's claim: token and fence high-water set together. */
    private void claim(long entry, Long previousToken, String previousOwner, long previousFence, long token, String owner) {
        change(entry, "PENDING", "PENDING", previousToken, token, previousOwner, owner, previousFence, token);
    }

    /** A recorded completion: the row's claim token matched, and is cleared. */
    private void deliver(long entry, long token, String owner, long fence) {
        change(entry, "PENDING", "DELIVERED", token, null, owner, null, fence, fence);
    }

    @Test
    void aCleanLifeWithATakeoverPasses() {
        claim(1, null, null, 0, 5, "w1");
        claim(1, 5L, "w1", 5, 9, "w2"); // w1's lease expired: w2 takes over with a higher token
        deliver(1, 9, "w2", 9);

        AuditChecker.Result r = AuditChecker.check(audit, true);

        assertThat(r.total()).isZero();
        assertThat(r.byClass()).containsEntry(AuditChecker.STALE_FINALIZATION, 0).containsEntry(AuditChecker.FENCE_REGRESSION, 0);
        assertThat(r.records()).isEqualTo(3);
    }

    @Test
    void aRowFinishedUnderAnOlderTokenThanItsNewestClaimIsAStaleFinalization() {
        claim(1, null, null, 0, 5, "w1");
        claim(1, 5L, "w1", 5, 9, "w2");
        // an unfenced store puts w1's token back and completes under it: the bug --unsafe-no-fence injects
        change(1, "PENDING", "PENDING", 9L, 5L, "w2", "w2", 9, 9);
        deliver(1, 5, "w2", 9);

        AuditChecker.Result r = AuditChecker.check(audit, true);

        assertThat(r.byClass()).containsEntry(AuditChecker.STALE_FINALIZATION, 1);
        assertThat(r.violations()).anyMatch(v -> v.startsWith("[auditStaleFinalization] entry 1")
                && v.contains("DELIVERED under token 5") && v.contains("after claim 9"));
    }

    @Test
    void aClaimTokenThatDoesNotGrowIsAFenceRegressionWithRecordedClaims() {
        claim(1, null, null, 0, 9, "w2");
        change(1, "PENDING", "PENDING", 9L, 5L, "w2", "w1", 9, 9);

        assertThat(AuditChecker.check(audit, true).byClass()).containsEntry(AuditChecker.FENCE_REGRESSION, 1);
        // lean claims record no claims on the row: a token going back is not judged there
        assertThat(AuditChecker.check(audit, false).byClass()).containsEntry(AuditChecker.FENCE_REGRESSION, 0);
    }

    @Test
    void aFenceHighWaterMarkGoingDownIsAFenceRegression() {
        change(2, "PENDING", "DELIVERED", null, null, null, null, 0, 7); // a lean completion under token 7
        change(3, "PENDING", "PENDING", null, null, null, null, 7, 4);

        AuditChecker.Result r = AuditChecker.check(audit, false);

        assertThat(r.byClass()).containsEntry(AuditChecker.FENCE_REGRESSION, 1).containsEntry(AuditChecker.STALE_FINALIZATION, 0);
        assertThat(r.violations()).singleElement().asString().contains("entry 3").contains("fence_high_water 7 -> 4");
    }

    @Test
    void theAuditIsJudgedInSeqOrderWhateverTheListOrder() {
        claim(1, null, null, 0, 5, "w1");
        claim(1, 5L, "w1", 5, 9, "w2");
        deliver(1, 9, "w2", 9);
        java.util.Collections.reverse(audit);

        assertThat(AuditChecker.check(audit, true).total()).isZero();
    }

    @Test
    void aRowMarkedDeliveredBeforeTheDownstreamReceivedItBreaksTheRun() {
        claim(1, null, null, 0, 5, "w1");
        deliver(1, 5, "w1", 5); // seq 2: at 2,000,000 µs
        claim(2, null, null, 0, 6, "w1");
        deliver(2, 6, "w1", 6); // seq 4: at 4,000,000 µs
        claim(3, null, null, 0, 7, "w1");
        deliver(3, 7, "w1", 7); // seq 6: at 6,000,000 µs
        List<Delivery> deliveries = List.of(
                new Delivery(1, "k1", 1, 5L, "w1", 1, 1_500_000), // received before its row went DELIVERED: fine
                new Delivery(2, "k2", 2, 6L, "w1", 2, 4_500_000)); // received only after; entry 3 never

        AuditChecker.Result r = AuditChecker.check(audit, deliveries, true);

        assertThat(r.byClass()).containsEntry(AuditChecker.DELIVERED_UNRECEIVED, 2)
                .containsEntry(AuditChecker.STALE_FINALIZATION, 0).containsEntry(AuditChecker.FENCE_REGRESSION, 0);
        assertThat(r.violations()).anyMatch(v -> v.startsWith("[auditDeliveredUnreceived] entry 2") && v.contains("first received at 4500000"))
                .anyMatch(v -> v.startsWith("[auditDeliveredUnreceived] entry 3") && v.contains("never received downstream"));
        assertThat(AuditChecker.check(audit, true).byClass()).doesNotContainKey(AuditChecker.DELIVERED_UNRECEIVED);
    }
}
