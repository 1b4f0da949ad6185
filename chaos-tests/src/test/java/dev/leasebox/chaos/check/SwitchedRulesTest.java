package dev.leasebox.chaos.check;

import dev.leasebox.chaos.history.FaultEvent;
import dev.leasebox.chaos.history.HistoryEvent;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A run whose recorded row-claim fleet ({@code a}) is replaced by a worker with lean partition claims ({@code p}):
 * each owner's claims are held to its own style's rules, the rules that span both to every claim.
 */
class SwitchedRulesTest {

    private static final long LEASE = 3_000;
    private static final HistoryChecker.Rules SWITCHED = HistoryChecker.Rules.switchedToLeanPartitions(Set.of("p"));
    private final List<HistoryEvent> h = new ArrayList<>();
    private final List<FaultEvent> faults = List.of(new FaultEvent(1, FaultEvent.PROVIDER_FAULTS, "provider", "test"));

    private void claim(long t, String owner, long entry, long fence) {
        h.add(new HistoryEvent(t, t, owner, HistoryEvent.CLAIM, entry, fence, t, t + LEASE, ""));
    }

    private void event(long t, String owner, String kind, long entry, long fence, String detail) {
        h.add(HistoryEvent.of(t, owner, kind, entry, fence, detail));
    }

    private void emit(long t, String owner, long entry, long fence, String outcome) {
        event(t, owner, HistoryEvent.INVOKE, entry, fence, "");
        event(t + 1, owner, outcome, entry, fence, "");
    }

    private void complete(long t, String owner, long entry, long fence, String kind) {
        event(t, owner, HistoryEvent.COMPLETE_INVOKE, entry, fence, kind);
        event(t + 1, owner, HistoryEvent.COMPLETED, entry, fence, kind);
    }

    private static FinalState delivered(long mark) {
        return new FinalState(List.of(new FinalState.Row(1, "k1", "DELIVERED", 2, mark, 0)),
                Map.of("k1", new FinalState.Received("k1", 1, 1, 1)));
    }

    /** Entry 1: claimed by the row fleet under 70, its emission failed, completed RETRYABLE. */
    private void retriedByTheRowFleet() {
        claim(1000, "a", 1, 70);
        emit(1010, "a", 1, 70, HistoryEvent.FAIL);
        complete(1020, "a", 1, 70, "RETRYABLE_FAILURE");
    }

    @Test
    void aLeanPartitionWorkerFinishingAboveTheRowFleetsMarkPasses() {
        retriedByTheRowFleet();
        claim(5000, "p", 1, 71);
        emit(5010, "p", 1, 71, HistoryEvent.OK);
        complete(5020, "p", 1, 71, "DELIVERED");

        CheckResult r = HistoryChecker.check(h, faults, delivered(71), SWITCHED);

        assertThat(r.violations()).isEmpty();
        assertThat(r.passed()).isTrue();
    }

    @Test
    void aLeanCompletionBelowTheRowFleetsAcceptedCompletionIsARegression() {
        retriedByTheRowFleet();
        claim(5000, "p", 1, 7);
        emit(5010, "p", 1, 7, HistoryEvent.OK);
        complete(5020, "p", 1, 7, "DELIVERED"); // accepted although the row's mark was 70: a stale write

        CheckResult r = HistoryChecker.check(h, faults, delivered(70), SWITCHED);

        assertThat(r.passed()).isFalse();
        assertThat(r.violationsByClass()).containsEntry(HistoryChecker.Violation.LEAN_FENCE_REGRESSION, 1);
    }

    @Test
    void theRowFleetIsStillHeldToStrictlyGrowingClaims() {
        claim(1000, "a", 1, 70);
        complete(1020, "a", 1, 70, "RETRYABLE_FAILURE");
        claim(2000, "b", 1, 70); // the same token claimed twice by the recorded fleet
        emit(2010, "b", 1, 70, HistoryEvent.OK);
        complete(2020, "b", 1, 70, "DELIVERED");

        CheckResult r = HistoryChecker.check(h, faults, delivered(70), SWITCHED);

        assertThat(r.violationsByClass()).containsEntry(HistoryChecker.Violation.FENCE_REGRESSION, 1);
    }

    @Test
    void aSwitchIsFromRecordedRowClaims() {
        assertThatThrownBy(() -> new HistoryChecker.Rules(false, false, true, Set.of("p")))
                .hasMessageContaining("recorded row claims");
        assertThat(SWITCHED.switched()).isTrue();
        assertThat(HistoryChecker.Rules.ROW_CLAIMS.switched()).isFalse();
    }
}
