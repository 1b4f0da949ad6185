package dev.leasebox.chaos.check;

import dev.leasebox.chaos.check.HistoryChecker.Violation;
import dev.leasebox.chaos.history.FaultEvent;

import java.util.List;
import java.util.Map;

import static dev.leasebox.chaos.check.HistoryChecker.COMMON_CLOCK_TOLERANCE_MILLIS;
import static dev.leasebox.chaos.check.HistoryChecker.addViolation;

/**
 * Row claims: a claim g by another worker whose claim line was written while, by real time, an earlier
 * claim f of the row still certainly stood: f was granted before g's claim call began ({@code f.t <=
 * g.askedAt}), f's lease cannot have ended yet ({@code g.t < f.realExpiryLow}), and f's holder had neither
 * finished, lost nor abandoned it. Only the common clock and lease lengths are used, so a taker whose wall
 * clock runs ahead cannot hide an early takeover. Lean claims excuse a takeover across coordinator data loss.
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
                    if (f == g || f.owner.equals(g.owner) || f.realExpiryLow == Long.MIN_VALUE || f.t > g.askedAt
                            || g.t + COMMON_CLOCK_TOLERANCE_MILLIS >= f.realExpiryLow || f.endedAt <= g.t) {
                        continue;
                    }
                    boolean excused = rules.leanRowClaims() && dataLoss.stream()
                            .anyMatch(loss -> f.askedAt <= loss.t() && loss.t() <= g.t);
                    if (!excused) {
                        premature++;
                        addViolation(violations, Violation.PREMATURE_TAKEOVER, "entry " + g.entry + " claimed under fence "
                                + g.fence + " by " + g.owner + " at " + g.t + " (real time), while " + f.owner
                                + "'s lease under fence " + f.fence + " stood until " + f.realExpiryLow + " at least");
                        break;
                    }
                }
            }
        }
        return premature;
    }
}
