package dev.leasebox.chaos.check;

import dev.leasebox.chaos.check.HistoryChecker.Violation;
import dev.leasebox.chaos.history.FaultEvent;

import java.util.List;
import java.util.Map;

import static dev.leasebox.chaos.check.HistoryChecker.COMMON_CLOCK_TOLERANCE_MILLIS;
import static dev.leasebox.chaos.check.HistoryChecker.addViolation;

/**
 * Row claims: two claims of one entry by different workers that, by real time, certainly stood at once. Only the
 * common clock and lease lengths are used, so a taker whose wall clock runs ahead cannot hide an early takeover.
 * A claim's grant happened between its call's start ({@code askedAt}) and its claim line ({@code t}); its lease
 * cannot have ended before {@code realExpiryLow}, nor before its holder finished, lost or abandoned it
 * ({@code endedAt}). For an earlier claim f and a later claim g (by claim line):
 *
 * <ul>
 *   <li><b>one after the other</b>: f was granted before g's call began ({@code f.t <= g.askedAt}); g is premature
 *       when its line was written while f's lease still stood ({@code g.t < f.realExpiryLow}) and f had not ended;</li>
 *   <li><b>overlapping calls</b> ({@code f.t > g.askedAt}): either grant may have come first, so both orders must
 *       be excluded: g granted while f stood ({@code g.t < f.realExpiryLow}, f not ended by {@code g.t}) and f
 *       granted while g stood ({@code f.t < g.realExpiryLow}, g not ended by {@code f.t}). A taker that read a lease
 *       expired, stalled, and then took over a newer holder's lease is caught here: its call began before that
 *       holder's grant.</li>
 * </ul>
 *
 * Lean claims excuse a takeover across coordinator data loss. Claims of lean partition fleets are not judged here
 * (a row's claim there is a read under a slot lease granted earlier).
 */
final class PrematureTakeovers {

    private PrematureTakeovers() {
    }

    static int count(Map<Long, List<Claim>> byEntry, List<FaultEvent> dataLoss, HistoryChecker.Rules rules,
                     List<String> violations) {
        int premature = 0;
        for (List<Claim> entryClaims : byEntry.values()) {
            for (Claim g : entryClaims) {
                for (Claim f : entryClaims) {
                    if (f == g || f.owner.equals(g.owner) || !stoodTogether(f, g, rules)) {
                        continue;
                    }
                    boolean excused = rules.leanRowClaims() && dataLoss.stream()
                            .anyMatch(loss -> Math.min(f.askedAt, g.askedAt) <= loss.t() && loss.t() <= g.t);
                    if (!excused) {
                        premature++;
                        addViolation(violations, Violation.PREMATURE_TAKEOVER, "entry " + g.entry + " claimed under fence "
                                + g.fence + " by " + g.owner + " at " + g.t + " (real time), while " + f.owner
                                + "'s lease under fence " + f.fence + " stood until " + f.realExpiryLow + " at least"
                                + (f.t > g.askedAt ? " (" + g.owner + "'s claim call began at " + g.askedAt + ", before "
                                + f.owner + "'s grant at " + f.t + " at the latest, and its lease stood until "
                                + g.realExpiryLow + " at least)" : ""));
                        break;
                    }
                }
            }
        }
        return premature;
    }

    /** Whether f (the earlier claim line) and g certainly held the entry at one instant; see the class comment. */
    private static boolean stoodTogether(Claim f, Claim g, HistoryChecker.Rules rules) {
        if (f.realExpiryLow == Long.MIN_VALUE || f.t > g.t || (f.t == g.t && f.owner.compareTo(g.owner) > 0)) {
            return false;
        }
        boolean gWhileF = g.t + COMMON_CLOCK_TOLERANCE_MILLIS < f.realExpiryLow && f.endedAt > g.t;
        if (f.t <= g.askedAt) {
            return gWhileF;
        }
        if (g.realExpiryLow == Long.MIN_VALUE || rules.leanPartitionClaimsOf(f.owner) || rules.leanPartitionClaimsOf(g.owner)) {
            return false;
        }
        boolean fWhileG = f.t + COMMON_CLOCK_TOLERANCE_MILLIS < g.realExpiryLow && g.endedAt > f.t;
        return gWhileF && fWhileG;
    }
}
