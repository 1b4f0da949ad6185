package dev.leasebox.chaos.check;

import dev.leasebox.chaos.check.HistoryChecker.Violation;
import dev.leasebox.chaos.history.HistoryEvent;

import java.util.List;
import java.util.Map;

import static dev.leasebox.chaos.check.HistoryChecker.addViolation;
import static dev.leasebox.chaos.check.HistoryChecker.isTerminal;

/**
 * Completions the store accepted although it should have refused them.
 *
 * @param total      every stale completion accepted
 * @param afterNewer lean row claims: accepted after a newer holder's completion (or any terminal one) had ended
 * @param afterLoss  lean row claims: accepted although its own worker had recorded the claim lost or abandoned
 */
record StaleCompletions(int total, int afterNewer, int afterLoss) {

    /** Recorded claims: a completion accepted though a newer claim was recorded before it was sent. */
    static StaleCompletions ofRecordedClaims(List<Accepted> completions, Map<Long, List<Claim>> byEntry,
                                             List<String> violations) {
        int stale = 0;
        for (Accepted accepted : completions) {
            HistoryEvent done = accepted.done();
            long sentAt = accepted.sentAt();
            boolean terminal = isTerminal(done.detail());
            for (Claim later : byEntry.getOrDefault(done.entry(), List.of())) {
                if (later.fence > done.fence() && (terminal || later.t < sentAt)) {
                    stale++;
                    addViolation(violations, Violation.STALE_COMPLETION, "entry " + done.entry() + " " + done.detail()
                            + " under fence " + done.fence() + " by " + done.owner() + ", though fence " + later.fence
                            + " was claimed by " + later.owner);
                    break;
                }
            }
        }
        return new StaleCompletions(stale, 0, 0);
    }

    /**
     * Lean row claims ({@code ClaimMode.LEAN}): what the store promises is exactly that a completion is written
     * only with a fence above every fence that completed the row before, and that a worker that knows its lease is
     * gone writes nothing. So an accepted completion is a violation when an accepted completion of the row under a
     * higher fence, or any accepted terminal one, had ended before it was sent ({@link Violation#LEAN_AFTER_NEWER}),
     * or when its own worker had recorded the claim lost or abandoned before sending it
     * ({@link Violation#LEAN_AFTER_LOSS}). A stale holder's completion accepted while no newer holder had completed
     * is allowed, a stale DEAD_LETTERED beating a concurrent delivery included.
     */
    static StaleCompletions ofLeanRows(List<Accepted> completions, Map<String, Claim> latestByFence,
                                       List<String> violations) {
        int afterNewer = 0;
        int afterLoss = 0;
        for (Accepted a : completions) {
            HistoryEvent done = a.done();
            for (Accepted b : completions) {
                if (b == a || b.done().entry() != done.entry() || b.done().t() >= a.sentAt()) {
                    continue;
                }
                if (b.done().fence() > done.fence() || (isTerminal(b.done().detail()) && b.done().fence() != done.fence())) {
                    afterNewer++;
                    addViolation(violations, Violation.LEAN_AFTER_NEWER, "entry " + done.entry() + " " + done.detail()
                            + " accepted under fence " + done.fence() + " from " + done.owner() + ", sent at " + a.sentAt()
                            + " after " + b.done().owner() + "'s " + b.done().detail() + " under fence " + b.done().fence()
                            + " was accepted at " + b.done().t());
                    break;
                }
            }
            Claim own = latestByFence.get(done.entry() + "/" + done.fence());
            if (own != null && own.owner.equals(done.owner()) && own.lostAt < a.sentAt()) {
                afterLoss++;
                addViolation(violations, Violation.LEAN_AFTER_LOSS, "entry " + done.entry() + " " + done.detail()
                        + " accepted under fence " + done.fence() + " from " + done.owner() + ", which had recorded the claim "
                        + "lost or abandoned at " + own.lostAt + " and sent it at " + a.sentAt());
            }
        }
        return new StaleCompletions(afterNewer + afterLoss, afterNewer, afterLoss);
    }
}
