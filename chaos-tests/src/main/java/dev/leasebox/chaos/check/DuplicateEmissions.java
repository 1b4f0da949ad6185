package dev.leasebox.chaos.check;

import dev.leasebox.chaos.check.HistoryChecker.Violation;
import dev.leasebox.chaos.history.FaultEvent;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static dev.leasebox.chaos.check.HistoryChecker.COMMON_CLOCK_TOLERANCE_MILLIS;
import static dev.leasebox.chaos.check.HistoryChecker.addViolation;

/**
 * Emissions of an entry under a claim after an earlier claim may already have delivered it.
 *
 * <p>Two emissions of one entry under one fence are never explained: within one grant, an entry is handed out again
 * only after its earlier emission is over, and then under a higher token (whatever ended the earlier emission: a
 * retry, a loss, a re-read). Only lean claims across a coordinator data loss are excused, where the coordinator may
 * grant a number again.
 *
 * @param count       every duplicate emission
 * @param unexplained those no cause explains, the same-fence ones included
 * @param sameFence   emissions under a fence the entry was already emitted under
 * @param causes      the explained ones, by cause
 */
record DuplicateEmissions(int count, int unexplained, int sameFence, Map<String, Integer> causes) {

    static DuplicateEmissions count(Map<Long, List<Claim>> byEntry, List<FaultEvent> dataLoss,
                                    HistoryChecker.Rules rules, List<String> violations) {
        int duplicates = 0;
        int unexplained = 0;
        int sameFence = 0;
        Map<String, Integer> causes = new TreeMap<>();
        for (List<Claim> entryClaims : byEntry.values()) {
            int repeated = sameFence(entryClaims, rules.lean() ? dataLoss : List.of(), violations);
            sameFence += repeated;
            duplicates += repeated;
            unexplained += repeated;
            Claim lastDelivering = null;
            // Lean row claims write no claim on the row (its attempt count counts completions): history order.
            for (Claim g : rules.leanRowClaims() ? entryClaims : Claim.inRowOrder(entryClaims)) {
                // Row claims: a later claim of the row has a higher fence (a lower one is a regression, counted
                // apart). Lean claims (and a run switched to them): any other claim, a same-grant re-read or a
                // zombie's stale read included.
                if (g.invoked && lastDelivering != null && lastDelivering != g && lastDelivering.fence != g.fence
                        && (lastDelivering.fence < g.fence || rules.lean() || rules.switched())) {
                    duplicates++;
                    String cause = explain(lastDelivering, g, rules.lean() ? dataLoss : List.of());
                    if (cause.isEmpty()) {
                        unexplained++;
                        addViolation(violations, Violation.UNEXPLAINED_DUPLICATE, "entry " + g.entry
                                + " emitted under fence " + lastDelivering.fence + " by " + lastDelivering.owner
                                + " (claim call at " + lastDelivering.askedAt + ", lease not over before "
                                + lastDelivering.realExpiryLow + " by real time) and again under fence " + g.fence + " by "
                                + g.owner + " (claimed by " + g.t + ")");
                    } else {
                        causes.merge(cause, 1, Integer::sum);
                    }
                }
                if (g.mayHaveDelivered) {
                    lastDelivering = g;
                }
            }
        }
        return new DuplicateEmissions(duplicates, unexplained, sameFence, causes);
    }

    /** The emissions of one entry's claims (history order) under a fence an earlier claim of it was emitted under. */
    private static int sameFence(List<Claim> entryClaims, List<FaultEvent> dataLoss, List<String> violations) {
        Map<Long, Claim> firstByFence = new java.util.HashMap<>();
        int repeated = 0;
        for (Claim g : entryClaims) {
            if (!g.invoked) {
                continue;
            }
            Claim first = firstByFence.putIfAbsent(g.fence, g);
            if (first == null || dataLoss.stream().anyMatch(loss -> first.askedAt <= loss.t() && loss.t() <= g.t)) {
                continue;
            }
            repeated++;
            addViolation(violations, Violation.SAME_FENCE_EMISSION, "entry " + g.entry + " emitted under fence " + g.fence
                    + " by " + first.owner + " (claimed by " + first.t + ") and again under the same fence by " + g.owner
                    + " (claimed by " + g.t + "): a second emission must carry a higher token");
        }
        return repeated;
    }

    /**
     * Why g's emission may duplicate f's: {@code retry} (f completed non-terminally before g), {@code loss} (f's
     * holder recorded it lost or abandoned before g), {@code expiry} (by real time: f's lease can have ended
     * before g was certainly granted, i.e. its earliest end {@link Claim#realExpiryLow} is not after g's claim
     * line; the workers' own clocks are never compared), {@code coordinator-loss} (lean claims only: the
     * coordinator lost its state between f's claim call and g's claim); empty when none holds.
     */
    private static String explain(Claim f, Claim g, List<FaultEvent> dataLoss) {
        if (f.completedNonTerminalAt <= g.t) {
            return "retry";
        }
        if (f.lostAt <= g.t) {
            return "loss";
        }
        // Renewals count only when kept (RENEW): a refused renewal moved no expiry.
        if (f.realExpiryLow != Long.MIN_VALUE && f.realExpiryLow <= g.t + COMMON_CLOCK_TOLERANCE_MILLIS) {
            return "expiry";
        }
        // Lean claims (row claims never get here with a lower fence): g read the row under an older grant than
        // f's, a zombie's stale read, which is explained when g's own lease can have ended before f's claim.
        if (g.fence < f.fence && g.realExpiryLow != Long.MIN_VALUE
                && g.realExpiryLow <= f.t + COMMON_CLOCK_TOLERANCE_MILLIS) {
            return "expiry";
        }
        for (FaultEvent loss : dataLoss) {
            if (Math.min(f.askedAt, g.askedAt) <= loss.t() && loss.t() <= Math.max(f.t, g.t)) {
                return "coordinator-loss";
            }
        }
        return "";
    }
}
