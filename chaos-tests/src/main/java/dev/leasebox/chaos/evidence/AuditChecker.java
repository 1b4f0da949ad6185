package dev.leasebox.chaos.evidence;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Judges a run from the database's audit alone, not from the workers' histories: what the table
 * committed, row by row in commit order ({@code seq}).
 *
 * <ul>
 *   <li><b>{@value #FENCE_REGRESSION}</b>: a change that lowers a row's {@code fence_high_water}; or, with
 *       recorded claims, a claim token set on a row that is not above every claim token the row carried before
 *       (a claim recorded under an older fence after a newer one).</li>
 *   <li><b>{@value #STALE_FINALIZATION}</b>: a terminal transition (to DELIVERED or DEAD_LETTERED) whose token
 *       is below the newest claim token the row carried before it committed. The transition's token is the claim
 *       token the row held when it committed (a recorded completion matches it and clears it), or, when the row
 *       held none, the fence high-water mark the completion set (lean completions). A terminal transition with
 *       neither carries no token and is not judged.</li>
 *   <li><b>{@value #DELIVERED_UNRECEIVED}</b> (when the deliveries are given): a transition to DELIVERED with no
 *       delivery of that entry in the downstream's own records received before it (both times are the
 *       database's clock): a row marked delivered that the downstream never saw first.</li>
 * </ul>
 */
public final class AuditChecker {

    /** From the audit: a row finished under a token older than its newest recorded claim. */
    public static final String STALE_FINALIZATION = "auditStaleFinalization";
    /** From the audit: a row's fence high-water mark went down, or (recorded claims) a claim token did not grow. */
    public static final String FENCE_REGRESSION = "auditFenceRegression";

    /** From the audit and the deliveries: a row went DELIVERED before (or without) any delivery of it was received. */
    public static final String DELIVERED_UNRECEIVED = "auditDeliveredUnreceived";

    public static final List<String> ALL = List.of(STALE_FINALIZATION, FENCE_REGRESSION, DELIVERED_UNRECEIVED);

    private static final Set<String> TERMINAL = Set.of("DELIVERED", "DEAD_LETTERED");
    private static final int MAX_VIOLATION_LINES = 50;

    private AuditChecker() {
    }

    /**
     * @param byClass    every class of {@link #ALL} with its count (0 included)
     * @param violations one line per violation, {@code [class]} first (capped)
     * @param records    audit lines judged
     */
    public record Result(Map<String, Integer> byClass, List<String> violations, int records) {
        public Result {
            byClass = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(byClass));
            violations = List.copyOf(violations);
        }

        /** No audit to judge (a report directory from before audits, or a run that never got that far). */
        public static Result none() {
            return new Result(Map.of(), List.of(), 0);
        }

        public int total() {
            return byClass.values().stream().mapToInt(Integer::intValue).sum();
        }
    }

    /**
     * @param audit          the audit in any order (sorted by {@code seq} here)
     * @param recordedClaims whether claims were recorded on the rows (not lean): claim tokens must then only grow
     */
    public static Result check(List<AuditRecord> audit, boolean recordedClaims) {
        return check(audit, null, recordedClaims);
    }

    /**
     * @param deliveries the downstream's deliveries, or null when there are none to judge (then
     *                   {@value #DELIVERED_UNRECEIVED} is not counted)
     */
    public static Result check(List<AuditRecord> audit, List<Delivery> deliveries, boolean recordedClaims) {
        Map<String, Integer> counts = new LinkedHashMap<>();
        ALL.forEach(c -> counts.put(c, 0));
        if (deliveries == null) {
            counts.remove(DELIVERED_UNRECEIVED);
        }
        Map<Long, Long> firstReceived = new HashMap<>();
        if (deliveries != null) {
            deliveries.forEach(d -> firstReceived.merge(d.entryId(), d.receivedMicros(), Math::min));
        }
        List<String> lines = new ArrayList<>();
        List<AuditRecord> sorted = new ArrayList<>(audit);
        sorted.sort(java.util.Comparator.comparingLong(AuditRecord::seq));
        Map<Long, Long> newestClaim = new HashMap<>();
        for (AuditRecord a : sorted) {
            long before = newestClaim.getOrDefault(a.entryId(), 0L);
            if (a.oldFenceHighWater() != null && a.newFenceHighWater() != null
                    && a.newFenceHighWater() < a.oldFenceHighWater()) {
                violation(counts, lines, FENCE_REGRESSION, a, "fence_high_water " + a.oldFenceHighWater() + " -> "
                        + a.newFenceHighWater());
            }
            boolean claimSet = a.newClaimToken() != null && !a.newClaimToken().equals(a.oldClaimToken());
            if (recordedClaims && claimSet && a.newClaimToken() <= before) {
                violation(counts, lines, FENCE_REGRESSION, a, "claim token " + a.newClaimToken() + " set (owner "
                        + a.newClaimOwner() + ") after claim " + before);
            }
            boolean terminal = TERMINAL.contains(a.newStatus()) && !TERMINAL.contains(a.oldStatus());
            if (terminal) {
                Long token = a.oldClaimToken() != null ? a.oldClaimToken()
                        : a.newFenceHighWater() != null && !a.newFenceHighWater().equals(a.oldFenceHighWater())
                        ? a.newFenceHighWater() : null;
                if (token != null && token < before) {
                    violation(counts, lines, STALE_FINALIZATION, a, a.newStatus() + " under token " + token
                            + " (owner " + a.oldClaimOwner() + ") after claim " + before + " was recorded");
                }
                Long received = firstReceived.get(a.entryId());
                if (deliveries != null && "DELIVERED".equals(a.newStatus()) && (received == null || received > a.atMicros())) {
                    violation(counts, lines, DELIVERED_UNRECEIVED, a, "DELIVERED at " + a.atMicros() + " µs but "
                            + (received == null ? "never received downstream" : "first received at " + received + " µs"));
                }
            }
            if (a.newClaimToken() != null) {
                newestClaim.put(a.entryId(), Math.max(before, a.newClaimToken()));
            }
        }
        return new Result(counts, lines, sorted.size());
    }

    private static void violation(Map<String, Integer> counts, List<String> lines, String kind, AuditRecord a,
                                  String what) {
        counts.merge(kind, 1, Integer::sum);
        if (lines.size() < MAX_VIOLATION_LINES) {
            lines.add("[" + kind + "] entry " + a.entryId() + " (audit seq " + a.seq() + ", txid " + a.txid() + "): " + what);
        }
    }
}
