package dev.leasebox.chaos.evidence;

import dev.leasebox.chaos.check.FinalState;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A run whose recorded row-claim fleet is replaced by workers with lean partition claims (row-to-partition), on
 * hand-built evidence: each worker's deliveries are judged by its own claim style, and the new fleet's emissions
 * are bounded. Times are seconds on the database's clock.
 */
class SwitchedRunCheckTest {

    private static final Set<String> SECOND_FLEET = Set.of("w3", "w4");
    private static final DeliveryChecker.Mode RECORDED = DeliveryChecker.Mode.of("database", false, false);

    private final List<AuditRecord> audit = new ArrayList<>();
    private final List<Delivery> deliveries = new ArrayList<>();
    private final List<FinalState.Row> rows = new ArrayList<>();
    private long seq;

    private static long s(double seconds) {
        return (long) (seconds * 1_000_000);
    }

    private void audit(long entry, double at, String from, String to, Long oldToken, Long token, Double expires,
                       long oldMark, long mark) {
        seq++;
        audit.add(new AuditRecord(seq, entry, seq, s(at), from, to, oldToken, token, null, token == null ? null : "w1",
                null, expires == null ? null : s(at + expires), oldMark, mark));
    }

    private void delivery(long entry, double at, long fence, String worker) {
        deliveries.add(new Delivery(deliveries.size() + 1, "chaos-" + entry, entry, fence, worker, 1000 + deliveries.size(),
                s(at)));
    }

    /** Entry 1 claimed by the row fleet under 70 and left RETRYABLE (its mark 70), as the provider failed. */
    private void retriedByTheRowFleet() {
        audit(1, 1.0, "PENDING", "PENDING", null, 70L, 3.0, 0, 70);
        audit(1, 1.5, "PENDING", "RETRYABLE", 70L, null, null, 70, 70);
        rows.add(new FinalState.Row(1, "chaos-1", "DELIVERED", 2, 0, 0));
    }

    private AuditChecker.Result check(DeliveryChecker.Mode mode) {
        return DeliveryChecker.check(audit, deliveries, List.of(), new FinalState(rows, Map.of()), mode);
    }

    @Test
    void aSwitchedWorkersLeanDeliveryAboveTheMarkPassesWhereARecordedFleetWouldNeedAClaim() {
        retriedByTheRowFleet();
        delivery(1, 5.0, 71, "w3");
        audit(1, 5.1, "RETRYABLE", "DELIVERED", null, null, null, 70, 71);

        assertThat(check(RECORDED.switchedTo(SECOND_FLEET)).total()).isZero();
        assertThat(check(RECORDED).byClass()).containsEntry(DeliveryChecker.EMIT_WITHOUT_CLAIM, 1);
    }

    @Test
    void aSwitchedWorkerEmittingUnderASlotFenceBelowTheRowsMarkBites() {
        retriedByTheRowFleet();
        delivery(1, 5.0, 7, "w3");
        delivery(1, 5.2, 7, "w3");

        AuditChecker.Result r = check(RECORDED.switchedTo(SECOND_FLEET));
        assertThat(r.byClass()).containsEntry(DeliveryChecker.SUPERSEDED_FENCE, 2);
        assertThat(r.violations()).anyMatch(v -> v.startsWith("[" + DeliveryChecker.SUPERSEDED_FENCE + "] entry 1"));
    }

    @Test
    void theRowFleetIsStillHeldToClaimBeforeEmit() {
        retriedByTheRowFleet();
        delivery(1, 2.0, 70, "w1"); // after its claim was released

        assertThat(check(RECORDED.switchedTo(SECOND_FLEET)).byClass()).containsEntry(DeliveryChecker.EMIT_WITHOUT_CLAIM, 1);
    }

    @Test
    void theNewFleetMayRepeatOneBatchPerWorkerAndNoMore() {
        for (int i = 0; i < 41; i++) {
            delivery(1, 5.0 + i / 100.0, 71, i % 2 == 0 ? "w3" : "w4");
        }
        delivery(2, 5.0, 71, "w1"); // the row fleet's deliveries are not the new fleet's
        assertThat(SwitchBound.check(deliveries, SECOND_FLEET, 20).total()).isZero();

        delivery(1, 6.0, 71, "w3");
        AuditChecker.Result over = SwitchBound.check(deliveries, SECOND_FLEET, 20);
        assertThat(over.byClass()).containsEntry(SwitchBound.EXCESS, 1);
        assertThat(over.violations()).singleElement().asString().startsWith("[" + SwitchBound.EXCESS + "]");
        assertThat(SwitchBound.check(deliveries, Set.of(), 20).byClass()).isEmpty();
    }
}
