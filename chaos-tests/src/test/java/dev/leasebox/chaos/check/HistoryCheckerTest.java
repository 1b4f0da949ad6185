package dev.leasebox.chaos.check;

import dev.leasebox.claim.ClaimMode;

import dev.leasebox.chaos.history.FaultEvent;
import dev.leasebox.chaos.history.HistoryEvent;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The checker on hand-written histories: each invariant violation is caught, each explained duplicate accepted. */
class HistoryCheckerTest {

    private static final long LEASE = 3_000;
    private final List<HistoryEvent> h = new ArrayList<>();
    private final List<FaultEvent> faults = new ArrayList<>(List.of(new FaultEvent(1, FaultEvent.KILL, "a", "test")));

    private void claim(long t, String owner, long entry, long fence) {
        h.add(new HistoryEvent(t, t, owner, HistoryEvent.CLAIM, entry, fence, t, t + LEASE, ""));
    }

    private void event(long t, String owner, String kind, long entry, long fence, String detail) {
        h.add(HistoryEvent.of(t, owner, kind, entry, fence, detail));
    }

    private void emitOk(long t, String owner, long entry, long fence) {
        event(t, owner, HistoryEvent.INVOKE, entry, fence, "");
        event(t + 1, owner, HistoryEvent.OK, entry, fence, "");
    }

    private void complete(long t, String owner, long entry, long fence, String kind) {
        event(t, owner, HistoryEvent.COMPLETE_INVOKE, entry, fence, kind);
        event(t + 1, owner, HistoryEvent.COMPLETED, entry, fence, kind);
    }

    private static FinalState delivered(long... entries) {
        List<FinalState.Row> rows = new ArrayList<>();
        Map<String, FinalState.Received> inbox = new java.util.HashMap<>();
        for (long e : entries) {
            rows.add(new FinalState.Row(e, "k" + e, "DELIVERED", 1, 100, 0));
            inbox.put("k" + e, new FinalState.Received("k" + e, e, 1, 1));
        }
        return new FinalState(rows, inbox);
    }

    private CheckResult check(FinalState end) {
        return HistoryChecker.check(h, faults, end);
    }

    @Test
    void aCleanRunPasses() {
        claim(1000, "a", 1, 10);
        emitOk(1010, "a", 1, 10);
        complete(1020, "a", 1, 10, "DELIVERED");

        CheckResult r = check(delivered(1));

        assertThat(r.passed()).isTrue();
        assertThat(r.duplicateEmissions()).isZero();
        assertThat(r.emissions()).isEqualTo(1);
        assertThat(r.spans()).hasSize(1);
    }

    @Test
    void anEntryLeftPendingIsLost() {
        FinalState end = new FinalState(List.of(new FinalState.Row(1, "k1", "PENDING", 0, 0, 0),
                new FinalState.Row(2, "k2", "RETRYABLE_FAILURE", 2, 5, 0)), Map.of());

        CheckResult r = check(end);

        assertThat(r.lost()).isEqualTo(2);
        assertThat(r.passed()).isFalse();
        assertThat(r.violations()).anyMatch(v -> v.contains("entry 2 ended RETRYABLE_FAILURE"));
    }

    @Test
    void aDeliveredEntryMissingFromTheInboxIsLost() {
        FinalState end = new FinalState(List.of(new FinalState.Row(1, "k1", "DELIVERED", 1, 5, 0),
                new FinalState.Row(2, "k2", "DEAD_LETTERED", 4, 9, 0)), Map.of());

        CheckResult r = check(end);

        assertThat(r.lost()).isEqualTo(1);
        assertThat(r.deadLettered()).isEqualTo(1);
        assertThat(r.violations()).anyMatch(v -> v.contains("entry 1 is DELIVERED but absent from the inbox"));
    }

    @Test
    void aZombiesTerminalCompletionAfterAHigherClaimIsStale() {
        claim(1000, "a", 1, 10);
        emitOk(1010, "a", 1, 10);
        claim(5000, "b", 1, 11);
        emitOk(5010, "b", 1, 11);
        complete(6000, "a", 1, 10, "DELIVERED");
        event(6100, "b", HistoryEvent.COMPLETE_INVOKE, 1, 11, "DELIVERED");
        event(6101, "b", HistoryEvent.REFUSED, 1, 11, "StaleToken");

        CheckResult r = check(delivered(1));

        assertThat(r.staleCompletionsAccepted()).isEqualTo(1);
        assertThat(r.passed()).isFalse();
        assertThat(r.brokenInvariants()).anyMatch(b -> b.startsWith("no stale finalization"));
    }

    @Test
    void aNonTerminalCompletionSentAfterAHigherClaimWasRecordedIsStale() {
        claim(1000, "a", 1, 10);
        claim(5000, "b", 1, 11);
        complete(6000, "a", 1, 10, "RETRYABLE_FAILURE");
        complete(6500, "b", 1, 11, "DELIVERED");

        assertThat(check(delivered(1)).staleCompletionsAccepted()).isEqualTo(1);
    }

    @Test
    void aRetryAfterAnAcceptedFailureIsNotStale() {
        claim(1000, "a", 1, 10);
        event(1010, "a", HistoryEvent.INVOKE, 1, 10, "");
        event(1011, "a", HistoryEvent.FAIL, 1, 10, "503");
        complete(1020, "a", 1, 10, "RETRYABLE_FAILURE");
        claim(2000, "b", 1, 11);
        emitOk(2010, "b", 1, 11);
        complete(2020, "b", 1, 11, "DELIVERED");

        CheckResult r = check(delivered(1));

        assertThat(r.staleCompletionsAccepted()).isZero();
        assertThat(r.duplicateEmissions()).as("a failed emission delivered nothing").isZero();
        assertThat(r.passed()).isTrue();
    }

    @Test
    void aRefusedStaleCompletionIsCountedNotAViolation() {
        claim(1000, "a", 1, 10);
        emitOk(1010, "a", 1, 10);
        claim(4500, "b", 1, 11);
        event(6000, "a", HistoryEvent.COMPLETE_INVOKE, 1, 10, "DELIVERED");
        event(6001, "a", HistoryEvent.REFUSED, 1, 10, "Reclaimed");
        emitOk(6010, "b", 1, 11);
        complete(6020, "b", 1, 11, "DELIVERED");

        CheckResult r = check(delivered(1));

        assertThat(r.completionsRefused()).isEqualTo(1);
        assertThat(r.staleCompletionsAccepted()).isZero();
        assertThat(r.duplicatesByCause()).containsEntry("expiry", 1);
        assertThat(r.passed()).isTrue();
    }

    @Test
    void aFenceThatDoesNotGrowIsARegression() {
        claim(1000, "a", 1, 10);
        claim(5000, "b", 1, 10);

        CheckResult r = check(delivered(1));

        assertThat(r.fenceRegressions()).isEqualTo(1);
        assertThat(r.violations()).anyMatch(v -> v.contains("claimed under fence 10 by b after fence 10"));
    }

    @Test
    void claimsAreOrderedByTheRowsClaimAttemptNotByWhenTheirLinesWereWritten() {
        h.add(new HistoryEvent(5000, 5000, "b", HistoryEvent.CLAIM, 1, 11, 4000, 7000, "claimAttempt=2"));
        h.add(new HistoryEvent(5100, 5100, "a", HistoryEvent.CLAIM, 1, 10, 1000, 4000, "claimAttempt=1")); // written late

        assertThat(check(delivered(1)).fenceRegressions()).isZero();
    }

    @Test
    void aLaterClaimAttemptWithALowerFenceIsARegression() {
        h.add(new HistoryEvent(1000, 1000, "a", HistoryEvent.CLAIM, 1, 12, 1000, 4000, "claimAttempt=1"));
        h.add(new HistoryEvent(5000, 5000, "b", HistoryEvent.CLAIM, 1, 11, 4000, 7000, "claimAttempt=2"));

        assertThat(check(delivered(1)).fenceRegressions()).isEqualTo(1);
    }

    @Test
    void aFinalHighWaterBelowARecordedFenceIsARegression() {
        claim(1000, "a", 1, 500);
        complete(1020, "a", 1, 500, "DELIVERED");

        assertThat(check(delivered(1)).fenceRegressions()).as("row high-water 100 < fence 500").isEqualTo(1);
    }

    @Test
    void aDuplicateAfterTheEarlierLeaseExpiredIsExplainedByExpiry() {
        claim(1000, "a", 1, 10);
        emitOk(1010, "a", 1, 10);
        claim(4100, "b", 1, 11);
        emitOk(4110, "b", 1, 11);
        complete(4120, "b", 1, 11, "DELIVERED");

        CheckResult r = check(delivered(1));

        assertThat(r.duplicateEmissions()).isEqualTo(1);
        assertThat(r.duplicatesByCause()).containsEntry("expiry", 1);
        assertThat(r.passed()).isTrue();
    }

    @Test
    void aRenewalKeptMovesTheExpirySoAnOverlappingGrantIsUnexplained() {
        claim(1000, "a", 1, 10);
        emitOk(1010, "a", 1, 10);
        h.add(new HistoryEvent(1990, 1990, "a", HistoryEvent.RENEW_INVOKE, 1, 10, 0, 4990, ""));
        h.add(new HistoryEvent(2000, 2000, "a", HistoryEvent.RENEW, 1, 10, 0, 5000, ""));
        claim(4100, "b", 1, 11);
        emitOk(4110, "b", 1, 11);

        CheckResult r = check(delivered(1));

        assertThat(r.unexplainedDuplicates()).isEqualTo(1);
        assertThat(r.brokenInvariants()).anyMatch(b -> b.startsWith("duplicates only across expiry"));
    }

    @Test
    void aRefusedRenewalDoesNotMoveTheExpiry() {
        claim(1000, "a", 1, 10);
        emitOk(1010, "a", 1, 10);
        h.add(new HistoryEvent(6000, 6000, "a", HistoryEvent.RENEW_INVOKE, 1, 10, 0, 9000, ""));
        claim(4100, "b", 1, 11);
        emitOk(4110, "b", 1, 11);

        assertThat(check(delivered(1)).unexplainedDuplicates()).isZero();
    }

    @Test
    void aDuplicateAfterTheHolderReportedTheClaimLostIsExplainedByLoss() {
        claim(1000, "a", 1, 10);
        emitOk(1010, "a", 1, 10);
        event(1500, "a", HistoryEvent.LOST, 1, 10, "lease lost: session expired");
        h.add(new HistoryEvent(2000, 2000, "b", HistoryEvent.CLAIM, 1, 11, 2000, 5000, "")); // before a's recorded expiry
        emitOk(2010, "b", 1, 11);

        CheckResult r = check(delivered(1));

        assertThat(r.duplicatesByCause()).containsEntry("loss", 1);
        assertThat(r.unexplainedDuplicates()).isZero();
    }

    @Test
    void aDuplicateAfterAnUnknownOutcomeAndAnAcceptedRetryIsExplainedByRetry() {
        claim(1000, "a", 1, 10);
        event(1010, "a", HistoryEvent.INVOKE, 1, 10, "");
        event(1300, "a", HistoryEvent.INFO, 1, 10, "timeout after 300 ms");
        complete(1310, "a", 1, 10, "RETRYABLE_FAILURE");
        claim(1400, "a", 1, 11);
        emitOk(1410, "a", 1, 11);
        complete(1420, "a", 1, 11, "DELIVERED");

        CheckResult r = check(delivered(1));

        assertThat(r.duplicatesByCause()).containsEntry("retry", 1);
        assertThat(r.passed()).isTrue();
    }

    @Test
    void anInvocationWithoutOutcomeMayHaveDelivered() {
        claim(1000, "a", 1, 10);
        event(1010, "a", HistoryEvent.INVOKE, 1, 10, ""); // killed mid-call
        claim(1500, "b", 1, 11); // while a's claim stood: not explained
        emitOk(1510, "b", 1, 11);

        CheckResult r = check(delivered(1));

        assertThat(r.duplicateEmissions()).isEqualTo(1);
        assertThat(r.unexplainedDuplicates()).isEqualTo(1);
    }

    @Test
    void aRunWithoutFaultsFails() {
        faults.clear();
        claim(1000, "a", 1, 10);
        emitOk(1010, "a", 1, 10);
        complete(1020, "a", 1, 10, "DELIVERED");

        CheckResult r = check(delivered(1));

        assertThat(r.faultsInjected()).isZero();
        assertThat(r.passed()).isFalse();
        assertThat(r.brokenInvariants()).anyMatch(b -> b.contains("none was injected"));
    }

    @Test
    void reclaimTimeRunsFromTheKillToAnotherWorkersClaimOfAnEntryTheVictimHeld() {
        faults.clear();
        claim(1000, "a", 1, 10);
        claim(1000, "a", 2, 12);
        faults.add(new FaultEvent(1200, FaultEvent.KILL, "a", "SIGKILL"));
        claim(4000, "b", 1, 13);
        claim(5200, "b", 2, 14);

        CheckResult r = check(delivered(1, 2));

        assertThat(r.reclaimSeconds()).containsExactly(2.8, 4.0);
        assertThat(r.reclaimSecondsP50()).isEqualTo(2.8);
        assertThat(r.reclaimSecondsMax()).isEqualTo(4.0);
    }

    // ---- ordered runs: first deliveries per key in id order (the inbox's first_seq) ----

    private static final HistoryChecker.Rules ORDERED_LEAN = new HistoryChecker.Rules(true, true);
    private static final HistoryChecker.Rules LEAN = new HistoryChecker.Rules(false, true);

    /** Rows 1..n of one key, DELIVERED with high-water {@code mark}, in the inbox with the given first_seq values. */
    private static FinalState keyed(long mark, long... firstSeqs) {
        List<FinalState.Row> rows = new ArrayList<>();
        Map<String, FinalState.Received> inbox = new java.util.HashMap<>();
        for (int i = 0; i < firstSeqs.length; i++) {
            long id = i + 1;
            rows.add(new FinalState.Row(id, "k" + id, "DELIVERED", 1, mark, 0, "aggregate-1"));
            inbox.put("k" + id, new FinalState.Received("k" + id, id, 1, mark, firstSeqs[i]));
        }
        return new FinalState(rows, inbox);
    }

    @Test
    void anEntryFirstDeliveredBeforeAnEarlierEntryOfItsKeyIsAnOrderViolation() {
        CheckResult r = HistoryChecker.check(h, faults, keyed(100, 1, 3, 2, 4), ORDERED_LEAN);

        assertThat(r.orderViolations()).isEqualTo(1);
        assertThat(r.passed()).isFalse();
        assertThat(r.brokenInvariants()).anyMatch(b -> b.startsWith("per-key order"));
        assertThat(r.violations()).anyMatch(v -> v.contains("entry 3 was first delivered (inbox first_seq 2) before the earlier entry 2"));
    }

    @Test
    void firstDeliveriesInIdOrderPassWhateverOtherKeysDid() {
        List<FinalState.Row> rows = new ArrayList<>(keyed(100, 5, 9, 12).rows());
        Map<String, FinalState.Received> inbox = new java.util.HashMap<>(keyed(100, 5, 9, 12).inbox());
        // another key, interleaved with the first: only each key's own order counts
        rows.add(new FinalState.Row(4, "k4", "DELIVERED", 1, 100, 0, "aggregate-2"));
        inbox.put("k4", new FinalState.Received("k4", 4, 2, 100, 1));

        CheckResult r = HistoryChecker.check(h, faults, new FinalState(rows, inbox), ORDERED_LEAN);

        assertThat(r.orderViolations()).isZero();
        assertThat(r.passed()).isTrue();
    }

    @Test
    void everyEntryThatOvertookAnEarlierOneCountsOnce() {
        // entry 1 first delivered last (a zombie held it): entries 2, 3 and 4 each overtook it
        CheckResult r = HistoryChecker.check(h, faults, keyed(100, 10, 2, 3, 4), ORDERED_LEAN);

        assertThat(r.orderViolations()).isEqualTo(3);
    }

    @Test
    void anUnorderedRunReportsOrderViolationsWithoutFailing() {
        CheckResult r = HistoryChecker.check(h, faults, keyed(100, 2, 1), LEAN);

        assertThat(r.orderViolations()).isEqualTo(1);
        assertThat(r.orderChecked()).isFalse();
        assertThat(r.passed()).isTrue();
        assertThat(r.violations()).isEmpty();
    }

    // ---- lean partition claims: the slot grant's fence is every claim's token ----

    @Test
    void aLeanReReadUnderTheSameGrantAfterARetryIsASecondEmissionUnderOneFence() {
        claim(1000, "a", 1, 10);
        event(1010, "a", HistoryEvent.INVOKE, 1, 10, "");
        event(1300, "a", HistoryEvent.INFO, 1, 10, "timeout after 300 ms");
        complete(1310, "a", 1, 10, "RETRYABLE_FAILURE");
        claim(1400, "a", 1, 10); // the same grant reads the row again under the token it already emitted
        emitOk(1410, "a", 1, 10);
        complete(1420, "a", 1, 10, "DELIVERED");

        CheckResult lean = HistoryChecker.check(h, faults, delivered(1), LEAN);

        assertThat(lean.fenceRegressions()).isZero();
        assertThat(lean.staleCompletionsAccepted()).isZero();
        assertThat(lean.spans()).hasSize(2);
        // the retry ended the first emission, but a second emission must carry a higher token
        assertThat(lean.violationsByClass()).containsEntry(HistoryChecker.Violation.SAME_FENCE_EMISSION, 1)
                .containsEntry(HistoryChecker.Violation.UNEXPLAINED_DUPLICATE, 0);
        assertThat(lean.unexplainedDuplicates()).isEqualTo(1);
        assertThat(lean.violations()).anyMatch(v -> v.startsWith("[sameFenceEmission] entry 1 emitted under fence 10 by a"));
        assertThat(lean.passed()).isFalse();
        assertThat(lean.brokenInvariants()).anyMatch(b -> b.startsWith("no two emissions of one entry under one fence"));
        // the same history under row claims: a token repeated on a row is a regression there too
        assertThat(check(delivered(1)).fenceRegressions()).isEqualTo(1);
    }

    @Test
    void aLeanReReadUnderTheSameGrantWithAHigherTokenAfterARetryIsARetry() {
        claim(1000, "a", 1, 10);
        event(1010, "a", HistoryEvent.INVOKE, 1, 10, "");
        event(1300, "a", HistoryEvent.INFO, 1, 10, "timeout after 300 ms");
        complete(1310, "a", 1, 10, "RETRYABLE_FAILURE");
        claim(1400, "a", 1, 11); // the same grant, a token derived above the one it emitted
        emitOk(1410, "a", 1, 11);
        complete(1420, "a", 1, 11, "DELIVERED");

        CheckResult lean = HistoryChecker.check(h, faults, delivered(1), LEAN);

        assertThat(lean.duplicatesByCause()).containsEntry("retry", 1);
        assertThat(lean.violationsByClass()).containsEntry(HistoryChecker.Violation.SAME_FENCE_EMISSION, 0);
        assertThat(lean.passed()).isTrue();
    }

    @Test
    void twoEmissionsOfOneEntryUnderOneFenceFailTheRunWhateverEndedTheFirst() {
        // a connection blip: the grant dropped the row from its in-flight set while emission 1 went on, and handed it
        // out again under the same fence; emission 1's own loss report explains nothing
        claim(1000, "a", 1, 10);
        event(1010, "a", HistoryEvent.INVOKE, 1, 10, "");
        event(1500, "a", HistoryEvent.ABANDONED, 1, 10, "connection suspended");
        claim(2000, "a", 1, 10);
        emitOk(2010, "a", 1, 10);
        complete(2020, "a", 1, 10, "DELIVERED");

        for (HistoryChecker.Rules rules : List.of(LEAN, HistoryChecker.Rules.LEAN_ROW_CLAIMS,
                HistoryChecker.Rules.ROW_CLAIMS)) {
            CheckResult r = HistoryChecker.check(h, faults, delivered(1), rules);
            assertThat(r.violationsByClass()).as("%s", rules).containsEntry(HistoryChecker.Violation.SAME_FENCE_EMISSION, 1);
            assertThat(r.passed()).as("%s", rules).isFalse();
        }
        // only a coordinator that lost its state between the two may grant a lean claim's number again
        faults.add(new FaultEvent(1700, FaultEvent.COORDINATOR_DATA_LOSS, "redis", "restarted empty"));
        assertThat(HistoryChecker.check(h, faults, delivered(1), LEAN).violationsByClass())
                .containsEntry(HistoryChecker.Violation.SAME_FENCE_EMISSION, 0);
    }

    @Test
    void leanCompletionsWhoseTokenGoesDownAreARegression() {
        claim(1000, "b", 1, 11);
        complete(1020, "b", 1, 11, "RETRYABLE_FAILURE");
        claim(2000, "a", 1, 10);
        complete(2020, "a", 1, 10, "DELIVERED"); // accepted although fence 11 had completed before it was sent

        CheckResult r = HistoryChecker.check(h, faults, delivered(1), LEAN);

        assertThat(r.fenceRegressions()).isEqualTo(1);
        assertThat(r.violations()).anyMatch(v -> v.contains("completed (DELIVERED) under fence 10 by a after a completion under fence 11 by b"));
    }

    @Test
    void theSameLeanTokenFromAnotherGrantIsARegression() {
        claim(1000, "a", 1, 10);
        complete(1020, "a", 1, 10, "RETRYABLE_FAILURE");
        claim(2000, "b", 1, 10);
        complete(2020, "b", 1, 10, "DELIVERED");

        CheckResult r = HistoryChecker.check(h, faults, delivered(1), LEAN);

        assertThat(r.fenceRegressions()).isEqualTo(1);
        assertThat(r.violations()).anyMatch(v -> v.contains("the same token from another grant"));
    }

    @Test
    void aLeanRowEndingBelowAClaimedFenceIsARegression() {
        claim(1000, "a", 1, 500);
        complete(1020, "a", 1, 500, "DELIVERED");

        assertThat(HistoryChecker.check(h, faults, delivered(1), LEAN).fenceRegressions())
                .as("row high-water 100 < fence 500").isEqualTo(1);
    }

    @Test
    void aLeanRowLeftUnfinishedAfterAReadIsLostNotRegressed() {
        claim(1000, "a", 1, 500); // read, never completed: nothing was written
        FinalState end = new FinalState(List.of(new FinalState.Row(1, "k1", "PENDING", 0, 100, 0)), Map.of());

        CheckResult r = HistoryChecker.check(h, faults, end, LEAN);

        assertThat(r.lost()).isEqualTo(1);
        assertThat(r.fenceRegressions()).isZero();
    }

    @Test
    void aZombiesStaleLeanReadIsAnExplainedDuplicateAndItsRefusedCompletionNoViolation() {
        claim(1000, "a", 1, 10);         // a's slot grant (fence 10): lease until 4000
        emitOk(1010, "a", 1, 10);
        claim(4500, "b", 1, 20);         // b holds the slot now (claimedAt 4500)
        emitOk(4510, "b", 1, 20);
        complete(4520, "b", 1, 20, "DELIVERED");
        // a, frozen between taking its grants and reading, reads under its expired grant afterwards (entry 1 under a
        // token derived above the one it emitted, as its grant hands a row out again)
        h.add(new HistoryEvent(6000, 6000, "a", HistoryEvent.CLAIM, 2, 10, 6000, 4000, ""));
        h.add(new HistoryEvent(6000, 6000, "a", HistoryEvent.CLAIM, 1, 11, 6000, 4000, ""));
        emitOk(6010, "a", 1, 11);
        event(6020, "a", HistoryEvent.COMPLETE_INVOKE, 1, 11, "DELIVERED");
        event(6021, "a", HistoryEvent.REFUSED, 1, 11, "StaleToken");

        CheckResult r = HistoryChecker.check(h, faults, keyed(100, 1, 2), LEAN);

        assertThat(r.fenceRegressions()).isZero();
        assertThat(r.staleCompletionsAccepted()).isZero();
        assertThat(r.unexplainedDuplicates()).isZero();
        assertThat(r.duplicatesByCause()).containsEntry("expiry", 2);
        assertThat(r.passed()).isTrue();
    }

    @Test
    void aZombiesStaleLeanReadWhileItsLeaseStoodIsUnexplained() {
        claim(1000, "a", 1, 10);
        emitOk(1010, "a", 1, 10);
        h.add(new HistoryEvent(2000, 2000, "b", HistoryEvent.CLAIM, 1, 20, 2000, 5000, "")); // before a's lease ended
        emitOk(2010, "b", 1, 20);
        complete(2020, "b", 1, 20, "DELIVERED");
        h.add(new HistoryEvent(2500, 2500, "a", HistoryEvent.CLAIM, 1, 11, 2500, 4000, ""));
        emitOk(2510, "a", 1, 11);

        CheckResult r = HistoryChecker.check(h, faults, delivered(1), LEAN);

        assertThat(r.unexplainedDuplicates()).isEqualTo(2);
        assertThat(r.passed()).isFalse();
    }

    @Test
    void aLeanTerminalCompletionAfterANewerGrantReadTheRowIsStale() {
        claim(1000, "a", 1, 10);
        emitOk(1010, "a", 1, 10);
        event(1020, "a", HistoryEvent.COMPLETE_INVOKE, 1, 10, "DELIVERED"); // sent, then frozen
        claim(5000, "b", 1, 11);
        emitOk(5010, "b", 1, 11);
        event(5100, "a", HistoryEvent.COMPLETED, 1, 10, "DELIVERED");      // accepted: no fence
        event(5400, "b", HistoryEvent.COMPLETE_INVOKE, 1, 11, "DELIVERED");
        event(5401, "b", HistoryEvent.REFUSED, 1, 11, "AlreadyTerminal");

        CheckResult r = HistoryChecker.check(h, faults, delivered(1), LEAN);

        assertThat(r.staleCompletionsAccepted()).isEqualTo(1);
        assertThat(r.passed()).isFalse();
    }

    // ---- lean row claims (--claim-mode lean): exactly what ClaimMode.LEAN promises ----

    private static final HistoryChecker.Rules LEAN_ROWS = HistoryChecker.Rules.LEAN_ROW_CLAIMS;

    /** A claim whose call began at {@code asked}, recorded at {@code t}, with its times on a clock {@code offset} off. */
    private void claimAsked(long asked, long t, String owner, long entry, long fence, long offset) {
        h.add(new HistoryEvent(t, t + offset, owner, HistoryEvent.CLAIM, entry, fence, t + offset, t + offset + LEASE, "",
                asked));
    }

    @Test
    void aLeanStaleHoldersCompletionBeforeAnyNewerCompletionIsAllowedEvenADeadLetterBeatingADelivery() {
        claim(1000, "a", 1, 10);
        emitOk(1010, "a", 1, 10);
        event(1020, "a", HistoryEvent.COMPLETE_INVOKE, 1, 10, "DEAD_LETTERED"); // sent, then frozen past its lease
        claim(4500, "b", 1, 11);                                              // lease expired: b reads the row
        emitOk(4510, "b", 1, 11);
        event(4600, "a", HistoryEvent.COMPLETED, 1, 10, "DEAD_LETTERED");     // accepted: nobody newer completed
        event(4900, "b", HistoryEvent.COMPLETE_INVOKE, 1, 11, "DELIVERED");
        event(4901, "b", HistoryEvent.REFUSED, 1, 11, "AlreadyTerminal");
        FinalState end = new FinalState(List.of(new FinalState.Row(1, "k1", "DEAD_LETTERED", 1, 10, 0)),
                Map.of("k1", new FinalState.Received("k1", 1, 1, 1)));

        CheckResult lean = HistoryChecker.check(h, faults, end, LEAN_ROWS);

        assertThat(lean.violations()).isEmpty();
        assertThat(lean.passed()).isTrue();
        assertThat(lean.duplicatesByCause()).containsEntry("expiry", 1);
        // recorded claims promise more: the same history is a stale completion there
        assertThat(HistoryChecker.check(h, faults, end).staleCompletionsAccepted()).isEqualTo(1);
    }

    @Test
    void aLeanCompletionAcceptedAfterANewerHoldersCompletionIsAViolation() {
        claim(1000, "a", 1, 10);
        emitOk(1010, "a", 1, 10);
        claim(4500, "b", 1, 11);
        emitOk(4510, "b", 1, 11);
        complete(4520, "b", 1, 11, "RETRYABLE_FAILURE");           // the newer holder completed first
        event(4600, "a", HistoryEvent.COMPLETE_INVOKE, 1, 10, "DELIVERED");
        event(4601, "a", HistoryEvent.COMPLETED, 1, 10, "DELIVERED"); // then the stale one was accepted

        CheckResult r = HistoryChecker.check(h, faults, delivered(1), LEAN_ROWS);

        assertThat(r.staleCompletionsAccepted()).isEqualTo(1);
        assertThat(r.violationsByClass()).containsEntry(HistoryChecker.Violation.LEAN_AFTER_NEWER, 1);
        assertThat(r.violations()).anyMatch(v -> v.startsWith("[leanCompletionAfterNewerCompletion] entry 1 DELIVERED"));
        assertThat(r.passed()).isFalse();
    }

    @Test
    void aLeanCompletionSentAfterItsWorkerRecordedTheClaimLostIsAViolation() {
        claim(1000, "a", 1, 10);
        emitOk(1010, "a", 1, 10);
        event(2000, "a", HistoryEvent.LOST, 1, 10, "lease lost: renewal refused");
        complete(2100, "a", 1, 10, "DELIVERED"); // a worker that knows its lease is gone writes nothing

        CheckResult r = HistoryChecker.check(h, faults, delivered(1), LEAN_ROWS);

        assertThat(r.violationsByClass()).containsEntry(HistoryChecker.Violation.LEAN_AFTER_LOSS, 1);
        assertThat(r.passed()).isFalse();
    }

    @Test
    void leanRowCompletionsMustStrictlyGrowInFenceEvenFromOneWorker() {
        claim(1000, "a", 1, 10);
        complete(1020, "a", 1, 10, "RETRYABLE_FAILURE");
        claim(2000, "a", 1, 10); // a new grant carries a new fence: the same one twice is a regression
        complete(2020, "a", 1, 10, "DELIVERED");

        CheckResult r = HistoryChecker.check(h, faults, keyed(10, 1), LEAN_ROWS);

        assertThat(r.fenceRegressions()).isEqualTo(1);
        assertThat(r.violationsByClass()).containsEntry(HistoryChecker.Violation.LEAN_FENCE_REGRESSION, 1);
        // lean partition claims allow the same grant's token again after a retry
        assertThat(HistoryChecker.check(h, faults, keyed(10, 1), LEAN).fenceRegressions()).isZero();
    }

    @Test
    void aLeanRowEndingBelowAnAcceptedFenceIsARegressionButNotBelowARefusedReadersFence() {
        claim(1000, "a", 1, 10);
        complete(1020, "a", 1, 10, "DELIVERED");
        claim(1010, "b", 1, 90); // read before a's completion landed; its completion refused
        event(1500, "b", HistoryEvent.COMPLETE_INVOKE, 1, 90, "DELIVERED");
        event(1501, "b", HistoryEvent.REFUSED, 1, 90, "AlreadyTerminal");

        assertThat(HistoryChecker.check(h, faults, keyed(10, 1), LEAN_ROWS).fenceRegressions()).isZero();
        assertThat(HistoryChecker.check(h, faults, keyed(5, 1), LEAN_ROWS).violations())
                .anyMatch(v -> v.startsWith("[leanFenceRegression] entry 1 ends with fence high-water 5"));
    }

    @Test
    void aLeanDuplicateAcrossCoordinatorDataLossIsExplainedButNotWithoutIt() {
        claimAsked(990, 1000, "a", 1, 10, 0);
        emitOk(1010, "a", 1, 10);
        claimAsked(1990, 2000, "b", 1, 3, 0); // Redis restarted empty: its counter began again, its lease came at once
        emitOk(2010, "b", 1, 3);

        CheckResult without = HistoryChecker.check(h, faults, delivered(1), LEAN_ROWS);
        faults.add(new FaultEvent(1500, FaultEvent.COORDINATOR_DATA_LOSS, "redis:1", "restarted empty"));
        CheckResult with = HistoryChecker.check(h, faults, delivered(1), LEAN_ROWS);

        assertThat(without.unexplainedDuplicates()).isEqualTo(1);
        assertThat(without.prematureTakeovers()).isEqualTo(1);
        assertThat(with.duplicatesByCause()).containsEntry("coordinator-loss", 1);
        assertThat(with.passed()).isTrue();
        // recorded claims exclude through the row whatever the coordinator forgot: no excuse there
        assertThat(HistoryChecker.check(h, faults, delivered(1)).prematureTakeovers()).isEqualTo(1);
    }

    // ---- real time: expiry is judged on the common clock, never by a worker's own clock ----

    @Test
    void aTakerWhoseClockRunsAheadTakingALiveLeaseIsAPrematureTakeoverByRealTime() {
        claimAsked(990, 1000, "a", 1, 10, 0);   // a's lease stands until 990 + 3000 at least
        emitOk(1010, "a", 1, 10);
        claimAsked(1990, 2000, "b", 1, 11, 6_000); // b's clock is 6 s ahead: its claimedAt 8000 is after a's expiresAt
        emitOk(2010, "b", 1, 11);
        complete(2020, "b", 1, 11, "DELIVERED");

        CheckResult r = check(delivered(1));

        assertThat(r.prematureTakeovers()).isEqualTo(1);
        assertThat(r.unexplainedDuplicates()).isEqualTo(1);
        assertThat(r.violationsByClass()).containsEntry(HistoryChecker.Violation.PREMATURE_TAKEOVER, 1)
                .containsEntry(HistoryChecker.Violation.UNEXPLAINED_DUPLICATE, 1);
        assertThat(r.violations()).anyMatch(v -> v.startsWith("[prematureTakeover] entry 1 claimed under fence 11 by b"));
        assertThat(r.brokenInvariants()).anyMatch(b -> b.startsWith("no takeover while a lease stands"));
    }

    @Test
    void aHolderWhoseClockRunsBehindDoesNotStretchItsLeaseForTheChecker() {
        claimAsked(990, 1000, "a", 1, 10, -6_000); // a's clock 6 s behind: its expiresAt reads -2000
        emitOk(1010, "a", 1, 10);
        claimAsked(4000, 4100, "b", 1, 11, 0);     // after a's lease ended by real time (3990)
        emitOk(4110, "b", 1, 11);
        complete(4120, "b", 1, 11, "DELIVERED");

        CheckResult r = check(delivered(1));

        assertThat(r.prematureTakeovers()).isZero();
        assertThat(r.duplicatesByCause()).containsEntry("expiry", 1);
        assertThat(r.passed()).isTrue();
    }

    @Test
    void aClaimAfterTheHolderCommittedItsRetryIsNoTakeoverThoughTheHoldersLineCameLater() {
        // seen in CI (database/provider-faults): a's retry committed between its invocation (1030) and its
        // history line (1060); b's claim ran after the commit and its line (1050) came before a's
        claimAsked(990, 1000, "a", 1, 10, 0);
        event(1010, "a", HistoryEvent.INVOKE, 1, 10, "attempt 1");
        event(1012, "a", HistoryEvent.FAIL, 1, 10, "503");
        event(1030, "a", HistoryEvent.COMPLETE_INVOKE, 1, 10, "RETRYABLE_FAILURE");
        claimAsked(1040, 1050, "b", 1, 11, 0);
        event(1060, "a", HistoryEvent.COMPLETED, 1, 10, "RETRYABLE_FAILURE");
        emitOk(1070, "b", 1, 11);
        complete(1080, "b", 1, 11, "DELIVERED");

        CheckResult r = check(delivered(1));

        assertThat(r.prematureTakeovers()).isZero();
        assertThat(r.passed()).isTrue();
    }

    @Test
    void aTakerWhoseCallBeganBeforeTheNewHoldersGrantAndTookItOverWhileItStoodIsAPrematureTakeover() {
        // the ZooKeeper frozen taker: b read the lease expired at 900 and stalled; c took it over (1010) and still held
        // it (its completion 400 ms away) when b's stale takeover removed c's node and granted b the entry (1100)
        claimAsked(1000, 1010, "c", 1, 10, 0);
        emitOk(1020, "c", 1, 10);
        claimAsked(900, 1100, "b", 1, 12, 0);
        emitOk(1110, "b", 1, 12);
        complete(1120, "b", 1, 12, "DELIVERED");
        event(1420, "c", HistoryEvent.COMPLETE_INVOKE, 1, 10, "DELIVERED");
        event(1430, "c", HistoryEvent.REFUSED, 1, 10, "Reclaimed");

        CheckResult r = check(delivered(1));

        assertThat(r.prematureTakeovers()).isEqualTo(1);
        assertThat(r.violations()).anyMatch(v -> v.startsWith("[prematureTakeover] entry 1 claimed under fence 12 by b")
                && v.contains("b's claim call began at 900, before c's grant"));
        assertThat(r.passed()).isFalse();
    }

    @Test
    void overlappingClaimCallsAreNoTakeoverWhenTheEarlierHolderEndedBeforeTheLaterGrant() {
        // b's call began before c's grant, but c had sent its completion before b's claim line: either order is legal
        claimAsked(1000, 1010, "c", 1, 10, 0);
        event(1020, "c", HistoryEvent.INVOKE, 1, 10, "attempt 1");
        event(1025, "c", HistoryEvent.FAIL, 1, 10, "503");
        event(1030, "c", HistoryEvent.COMPLETE_INVOKE, 1, 10, "RETRYABLE_FAILURE");
        event(1040, "c", HistoryEvent.COMPLETED, 1, 10, "RETRYABLE_FAILURE");
        claimAsked(900, 1100, "b", 1, 12, 0);
        emitOk(1110, "b", 1, 12);
        complete(1120, "b", 1, 12, "DELIVERED");

        CheckResult r = check(delivered(1));

        assertThat(r.prematureTakeovers()).isZero();
        assertThat(r.passed()).isTrue();
    }

    // ---- rows granted under a lease shared by a group of rows (GroupedLeaseManager) ----

    private void claimUnderSharedLease(long asked, long t, String owner, long entry, long fence, long leaseSince) {
        long claimedAt = leaseSince; // the shared lease's grant, on the worker's clock (here the common one)
        h.add(new HistoryEvent(t, t, owner, HistoryEvent.CLAIM, entry, fence, claimedAt, claimedAt + LEASE, "", asked,
                leaseSince));
    }

    /** b's claim of entry 1 under fence 11 (its call began at {@code asked}), delivered and completed. */
    private void takenOverByB(long asked, long t) {
        claimAsked(asked, t, "b", 1, 11, 0);
        emitOk(t + 10, "b", 1, 11);
        complete(t + 20, "b", 1, 11, "DELIVERED");
    }

    @Test
    void aRowGrantedUnderAnOlderGroupLeaseIsBoundedByThatLeasesGrant() {
        // seen in CI (zookeeper/clock-step with rows grouped): a's group lease was granted at 90, the row under it at
        // 1000; the lease ended by 3090, and b took the row over at 3500, before 1000 + the lease's length
        claimUnderSharedLease(990, 1000, "a", 1, 10, 90);
        emitOk(1010, "a", 1, 10);
        takenOverByB(3400, 3500);

        CheckResult r = check(delivered(1));

        assertThat(r.prematureTakeovers()).isZero();
        assertThat(r.duplicatesByCause()).containsEntry("expiry", 1);
        assertThat(r.passed()).isTrue();
    }

    @Test
    void aTakeoverWhileTheGroupLeaseStoodIsStillPremature() {
        claimUnderSharedLease(990, 1000, "a", 1, 10, 900);   // the group's lease stands until 3900 at least
        emitOk(1010, "a", 1, 10);
        takenOverByB(3400, 3500);

        CheckResult r = check(delivered(1));

        assertThat(r.prematureTakeovers()).isEqualTo(1);
        assertThat(r.violations()).anyMatch(v -> v.contains("stood until 3900 at least"));
    }

    @Test
    void aSharedLeaseReportedAfterTheClaimCallBeganMovesNoBound() {
        // a fresh group lease is requested after the row's claim call began: the call's start stays the bound
        claimUnderSharedLease(990, 1000, "a", 1, 10, 995);
        emitOk(1010, "a", 1, 10);
        takenOverByB(3600, 3700);

        CheckResult r = check(delivered(1));

        assertThat(r.prematureTakeovers()).isEqualTo(1);
        assertThat(r.violations()).anyMatch(v -> v.contains("stood until 3990 at least"));
    }
}
