package dev.leasebox.chaos.check;

import dev.leasebox.chaos.check.HistoryChecker.Violation;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import static dev.leasebox.chaos.check.HistoryChecker.addViolation;

/** Rows whose fences went down: counted once per row, each instance a violation line. */
final class FenceRegressions {

    private FenceRegressions() {
    }

    /**
     * Recorded claims: a row's claims, in the row's order, must grow strictly in fence, and the final
     * high-water mark must not be below any of them.
     */
    static int ofRecordedClaims(Map<Long, List<Claim>> byEntry, FinalState end, List<String> violations) {
        Map<Long, Long> highWater = highWater(end);
        int regressions = 0;
        for (Map.Entry<Long, List<Claim>> e : byEntry.entrySet()) {
            long max = 0;
            boolean regressed = false;
            for (Claim c : Claim.inRowOrder(e.getValue())) {
                if (c.fence <= max) {
                    regressed = true;
                    addViolation(violations, Violation.FENCE_REGRESSION, "entry " + e.getKey() + " claimed under fence " + c.fence
                            + " by " + c.owner + " after fence " + max);
                }
                max = Math.max(max, c.fence);
            }
            Long mark = highWater.get(e.getKey());
            if (mark != null && mark < max) {
                regressed = true;
                addViolation(violations, Violation.FENCE_REGRESSION, "entry " + e.getKey() + " ends with fence high-water "
                        + mark + " below recorded fence " + max);
            }
            if (regressed) {
                regressions++;
            }
        }
        return regressions;
    }

    /**
     * Lean partition claims: per row, accepted completions whose order is certain (the first had ended before
     * the second was sent) must not lower the token, nor repeat it under another owner; and the final
     * high-water mark must not be below any fence a claim of the row carried.
     */
    static int ofLeanClaims(Map<Long, List<Claim>> byEntry, List<Accepted> completions, FinalState end,
                            boolean leanRows, List<String> violations) {
        Map<Long, Long> highWater = highWater(end);
        Map<Long, List<Accepted>> acceptedByEntry = new TreeMap<>();
        completions.forEach(a -> acceptedByEntry.computeIfAbsent(a.done().entry(), x -> new ArrayList<>()).add(a));
        Set<Long> regressed = new TreeSet<>();
        acceptedByEntry.forEach((entry, row) -> completionsInOrder(entry, row, leanRows, regressed, violations));
        if (leanRows) {
            // A lean row read under a newer lease may find the row finished by a stale holder after its read (the
            // newer completion is then refused): its fence can stay above the mark. Accepted completions cannot.
            for (Map.Entry<Long, List<Accepted>> e : acceptedByEntry.entrySet()) {
                long max = e.getValue().stream().mapToLong(a -> a.done().fence()).max().orElse(0);
                Long mark = highWater.get(e.getKey());
                if (mark != null && mark < max) {
                    regressed.add(e.getKey());
                    addViolation(violations, Violation.LEAN_FENCE_REGRESSION, "entry " + e.getKey()
                            + " ends with fence high-water " + mark + " below the accepted completion fence " + max);
                }
            }
            return regressed.size();
        }
        Set<Long> finished = new HashSet<>();
        end.rows().stream().filter(r -> HistoryChecker.isTerminal(r.status())).forEach(r -> finished.add(r.id()));
        for (Map.Entry<Long, List<Claim>> e : byEntry.entrySet()) {
            long max = e.getValue().stream().mapToLong(c -> c.fence).max().orElse(0);
            Long mark = highWater.get(e.getKey());
            // Only finished rows: a read writes nothing, so an unfinished row's mark is below its last reader's
            // fence (and the row is counted lost, not regressed).
            if (mark != null && mark < max && finished.contains(e.getKey())) {
                regressed.add(e.getKey());
                addViolation(violations, Violation.LEAN_FENCE_REGRESSION, "entry " + e.getKey() + " ends with fence high-water "
                        + mark + " below claimed fence " + max);
            }
        }
        return regressed.size();
    }

    /** One row's accepted completions, pairwise where their order is certain. */
    private static void completionsInOrder(long entry, List<Accepted> row, boolean leanRows, Set<Long> regressed,
                                           List<String> violations) {
        for (Accepted first : row) {
            for (Accepted second : row) {
                if (first == second || first.done().t() >= second.sentAt()) {
                    continue; // the same write, or not certainly before it
                }
                long f = first.done().fence();
                long g = second.done().fence();
                boolean sameOwner = first.done().owner().equals(second.done().owner());
                // lean rows: each grant is a new lease and its fence must be above the row's mark: strictly
                if (g < f || (g == f && (!sameOwner || leanRows))) {
                    regressed.add(entry);
                    addViolation(violations, Violation.LEAN_FENCE_REGRESSION, "entry " + entry + " completed ("
                            + second.done().detail() + ") under fence " + g + " by " + second.done().owner()
                            + " after a completion under fence " + f + " by " + first.done().owner()
                            + (g == f ? " (the same token from another grant)" : ""));
                }
            }
        }
    }

    private static Map<Long, Long> highWater(FinalState end) {
        Map<Long, Long> highWater = new HashMap<>();
        end.rows().forEach(r -> highWater.put(r.id(), r.fenceHighWater()));
        return highWater;
    }
}
