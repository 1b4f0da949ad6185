package dev.leasebox.chaos.check;

import dev.leasebox.claim.ClaimMode;

import dev.leasebox.chaos.history.FaultEvent;
import dev.leasebox.chaos.history.HistoryEvent;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Checks a run from the outside: it knows nothing of the workers, only their histories, the
 * harness's fault log and the final outbox and inbox. Times are on the common clock ({@code t});
 * claim expiries are the ones recorded on the rows ({@code claimedAt}/{@code expiresAt}), because
 * that is what the store judged eligibility by.
 *
 * <ul>
 *   <li><b>Lost</b>: a row not DELIVERED or DEAD_LETTERED at the end, or DELIVERED but absent from the inbox.</li>
 *   <li><b>Stale completion accepted</b>: a completion accepted under fence f although a claim with
 *       fence g &gt; f on the same entry was recorded before that completion was sent — or, for a
 *       terminal completion (no later claim can follow one), recorded at all.</li>
 *   <li><b>Fence regression</b>: a row's claims, in the order recorded, not strictly increasing, or a
 *       final fence high-water mark below a fence recorded in a history.</li>
 *   <li><b>Duplicate emission</b>: an emission under claim g of an entry that an earlier claim f may
 *       already have delivered (ok, info, or an invocation without outcome). Explained when, before
 *       g was granted, f had been completed (a retry), reported lost or abandoned by its holder
 *       (loss), or had expired as recorded on the row (expiry); otherwise unexplained.</li>
 *   <li><b>Order violation</b> ({@link Rules#ordered()} runs): for each partition key, the order of first
 *       deliveries must be the id order. It is read from the inbox, not from the histories: the
 *       jdbc-inbox provider numbers each key's first insert from a database sequence
 *       ({@code first_seq}), in the order those inserts ran, and a repeat keeps the number. An entry
 *       whose number is below that of an earlier entry of its key (lower id) was first delivered before
 *       it: one violation. (History times would only bracket each delivery between an invocation and
 *       an outcome line; the sequence is exact, because with {@code --ordered} an entry is claimed only
 *       after its predecessor's completion, hence after its predecessor's insert committed.) Counted
 *       for every run; a broken invariant only when the run was ordered.</li>
 * </ul>
 *
 * <p><b>Fences with lean partition claims</b> ({@link Rules#leanPartitionClaims()}). A lean claim is a
 * read: nothing is written on the row before the emission, and the claim's token is the slot grant's
 * fence. So one grant may claim (read) a row again with the <em>same</em> token after a retryable
 * failure, and reads — which the database does not order — are not what fencing orders; a zombie may
 * even read a row under its old grant after a newer grant was registered (its completion is then
 * refused). What the database records is each accepted completion, which sets the row's
 * {@code fence_high_water} to its token and is refused when the mark is above it. For such runs a
 * fence regression is therefore:
 * <ul>
 *   <li>two accepted completions of a row, the first ended before the second was sent, whose tokens
 *       go down, or stay equal although they came from different grants (another owner): per row,
 *       recorded tokens are non-decreasing, and strictly increasing between different grants;</li>
 *   <li>as for row claims, a final fence high-water mark below a fence any claim of the row carried,
 *       for rows that ended DELIVERED or DEAD_LETTERED (every grant that read a row is registered before
 *       the read, and only a completion under that grant or a newer one can finish the row; a row left
 *       unfinished is counted lost instead).</li>
 * </ul>
 * Row leases and recorded partition claims are held to the strict rule above, unchanged. Duplicates
 * with lean claims are counted between claims in history order, a same-token re-read after a retry
 * included; an emission under a lower fence than an earlier delivering claim (a zombie's stale read)
 * is explained by expiry only if the zombie's own slot lease had expired before the newer claim.
 * Stale completions are checked exactly as for row claims.
 */
public final class HistoryChecker {

    private static final int MAX_VIOLATION_LINES = 50;

    private HistoryChecker() {
    }

    /**
     * What the run promised beyond the invariants every run is held to.
     *
     * @param ordered             per-key ordering ({@code --ordered}): order violations break the run
     * @param leanPartitionClaims lean partition claims: fences are checked on accepted completions (see above)
     * @param leanRowClaims       lean row claims ({@code --claim-mode lean})
     * @param switchedOwners      a run whose recorded row-claim fleet was replaced by these workers with lean partition
     *                            claims (a migration): their claims are held to the lean partition rules, every other
     *                            claim to the recorded ones, and the rules that span both (accepted completions only
     *                            raise a row's fence, the final mark covers every claim) to all of them; empty otherwise
     */
    public record Rules(boolean ordered, boolean leanPartitionClaims, boolean leanRowClaims, Set<String> switchedOwners) {
        /** Row leases with recorded claims (and recorded partition claims without ordering). */
        public static final Rules ROW_CLAIMS = new Rules(false, false, false);
        /** Row leases with lean claims ({@code --claim-mode lean}). */
        public static final Rules LEAN_ROW_CLAIMS = new Rules(false, false, true);

        /** Row leases (recorded or lean partition claims). */
        public Rules(boolean ordered, boolean leanPartitionClaims) {
            this(ordered, leanPartitionClaims, false);
        }

        /** One claim style for the whole run. */
        public Rules(boolean ordered, boolean leanPartitionClaims, boolean leanRowClaims) {
            this(ordered, leanPartitionClaims, leanRowClaims, Set.of());
        }

        public Rules {
            if (leanPartitionClaims && leanRowClaims) {
                throw new IllegalArgumentException("a run has lean row claims or lean partition claims, not both");
            }
            switchedOwners = Set.copyOf(switchedOwners);
            if (!switchedOwners.isEmpty() && (leanPartitionClaims || leanRowClaims)) {
                throw new IllegalArgumentException("a fleet switch replaces recorded row claims by lean partition claims");
            }
        }

        /** Recorded row claims, then lean partition claims by {@code owners}. */
        public static Rules switchedToLeanPartitions(Set<String> owners) {
            return new Rules(false, false, false, owners);
        }

        boolean lean() {
            return leanPartitionClaims || leanRowClaims;
        }

        /** Whether the run switched claim style ({@link #switchedOwners}). */
        public boolean switched() {
            return !switchedOwners.isEmpty();
        }

        /** Whether {@code owner}'s claims are lean partition claims. */
        boolean leanPartitionClaimsOf(String owner) {
            return leanPartitionClaims || switchedOwners.contains(owner);
        }
    }

    /**
     * The violation classes, as {@code summary.json} ({@code violations.<class>}) and {@code report.md} name
     * them; every violation line starts with its class in brackets.
     */
    public static final class Violation {
        /** A row not finished at the end, or DELIVERED but absent from the inbox. */
        public static final String LOST = "lost";
        /** Recorded claims: a completion accepted though a newer claim was recorded before it was sent. */
        public static final String STALE_COMPLETION = "staleCompletionAccepted";
        /** Lean row claims: a completion accepted after a newer holder's completion (or any terminal one) had ended. */
        public static final String LEAN_AFTER_NEWER = "leanCompletionAfterNewerCompletion";
        /** Lean row claims: a completion accepted that its own worker sent after recording the claim lost or abandoned. */
        public static final String LEAN_AFTER_LOSS = "leanCompletionAfterOwnLoss";
        /** Claims of a row, in the row's order, not strictly growing in fence; or a final mark below one. */
        public static final String FENCE_REGRESSION = "fenceRegression";
        /** Lean claims: accepted completions of a row not growing in fence (strictly, for lean row claims). */
        public static final String LEAN_FENCE_REGRESSION = "leanFenceRegression";
        /** A duplicate emission not explained by expiry (real time), loss, retry or coordinator data loss. */
        public static final String UNEXPLAINED_DUPLICATE = "unexplainedDuplicate";
        /** Two emissions of one entry under one fence (counted among the unexplained duplicates too). */
        public static final String SAME_FENCE_EMISSION = "sameFenceEmission";
        /** Row claims: another worker granted the row, by real time, while the earlier holder's lease stood. */
        public static final String PREMATURE_TAKEOVER = "prematureTakeover";
        /** An entry first delivered before an earlier entry of its key (ordered runs). */
        public static final String ORDER = "orderViolation";
        /** No fault was injected. */
        public static final String NO_FAULT = "noFaultInjected";

        public static final List<String> ALL = List.of(LOST, STALE_COMPLETION, LEAN_AFTER_NEWER, LEAN_AFTER_LOSS,
                FENCE_REGRESSION, LEAN_FENCE_REGRESSION, UNEXPLAINED_DUPLICATE, SAME_FENCE_EMISSION, PREMATURE_TAKEOVER,
                ORDER, NO_FAULT);

        private Violation() {
        }
    }

    /**
     * How far the common clocks of two JVMs (each the database's clock read at its start, advanced by its own
     * monotonic clock) may disagree, in millis: real-time comparisons between workers allow this much.
     */
    static final long COMMON_CLOCK_TOLERANCE_MILLIS = 200;

    /** Checks a run of row claims ({@link Rules#ROW_CLAIMS}). */
    public static CheckResult check(List<HistoryEvent> history, List<FaultEvent> faults, FinalState end) {
        return check(history, faults, end, Rules.ROW_CLAIMS);
    }

    public static CheckResult check(List<HistoryEvent> history, List<FaultEvent> faults, FinalState end, Rules rules) {
        List<String> violations = new ArrayList<>();
        List<HistoryEvent> events = new ArrayList<>(history);
        events.sort(Comparator.comparingLong(HistoryEvent::t));
        ClaimHistory claims = ClaimHistory.replay(events, rules);
        Map<Long, List<Claim>> byEntry = claims.byEntry();

        List<FaultEvent> dataLoss = faults.stream().filter(FaultEvent::losesCoordinatorState).toList();
        Map<Long, List<Claim>> recorded = rules.switched() ? recordedOnly(byEntry, rules) : byEntry;
        int regressions = rules.lean() || rules.switched()
                ? FenceRegressions.ofLeanClaims(byEntry, claims.completions(), end, rules.leanRowClaims(), violations)
                : FenceRegressions.ofRecordedClaims(byEntry, end, violations);
        int recordedRegressions = rules.switched() ? FenceRegressions.ofRecordedClaims(recorded, end, violations) : 0;
        StaleCompletions stale = rules.leanRowClaims()
                ? StaleCompletions.ofLeanRows(claims.completions(), claims.latestByFence(), violations)
                : StaleCompletions.ofRecordedClaims(claims.completions(), byEntry, violations);
        int premature = rules.leanPartitionClaims() ? 0 : PrematureTakeovers.count(recorded, dataLoss, rules, violations);
        DuplicateEmissions duplicates = DuplicateEmissions.count(byEntry, dataLoss, rules, violations);
        RowOutcomes rows = RowOutcomes.of(end, violations);
        int orderViolations = orderViolations(end, rules.ordered() ? violations : new ArrayList<>());
        int inboxDuplicates = end.inbox().values().stream().mapToInt(r -> Math.max(0, r.deliveries() - 1)).sum();
        int injected = (int) faults.stream().filter(FaultEvent::isInjection).count();
        if (injected == 0) {
            addViolation(violations, Violation.NO_FAULT, "no fault was injected: the scenario proved nothing");
        }

        Map<String, Integer> byClass = new LinkedHashMap<>();
        Violation.ALL.forEach(v -> byClass.put(v, 0));
        byClass.put(Violation.LOST, rows.lost());
        byClass.put(Violation.UNEXPLAINED_DUPLICATE, duplicates.unexplained() - duplicates.sameFence());
        byClass.put(Violation.SAME_FENCE_EMISSION, duplicates.sameFence());
        byClass.put(Violation.PREMATURE_TAKEOVER, premature);
        byClass.put(Violation.ORDER, rules.ordered() ? orderViolations : 0);
        byClass.put(Violation.NO_FAULT, injected == 0 ? 1 : 0);
        byClass.put(rules.lean() || rules.switched() ? Violation.LEAN_FENCE_REGRESSION : Violation.FENCE_REGRESSION, regressions);
        if (rules.switched()) {
            byClass.put(Violation.FENCE_REGRESSION, recordedRegressions);
        }
        if (!rules.leanRowClaims()) {
            byClass.put(Violation.STALE_COMPLETION, stale.total());
        } else {
            byClass.put(Violation.LEAN_AFTER_NEWER, stale.afterNewer());
            byClass.put(Violation.LEAN_AFTER_LOSS, stale.afterLoss());
        }
        return new CheckResult(end.rows().size(), rows.delivered(), rows.deadLettered(), rows.lost(), stale.total(),
                regressions + recordedRegressions, claims.emissions(), duplicates.count(), duplicates.causes(), duplicates.unexplained(),
                inboxDuplicates, claims.refused(), injected, reclaimSeconds(events, faults, byEntry), violations,
                spans(claims.all()), orderViolations, rules.ordered(), premature, byClass);
    }

    /** The claims of a switched run's recorded fleet ({@link Rules#switchedOwners} left out). */
    private static Map<Long, List<Claim>> recordedOnly(Map<Long, List<Claim>> byEntry, Rules rules) {
        Map<Long, List<Claim>> recorded = new LinkedHashMap<>();
        byEntry.forEach((entry, list) -> {
            List<Claim> kept = list.stream().filter(c -> !rules.leanPartitionClaimsOf(c.owner)).toList();
            if (!kept.isEmpty()) {
                recorded.put(entry, kept);
            }
        });
        return recorded;
    }

    /** How the rows ended; a row neither finished nor, if DELIVERED, in the inbox, is lost. */
    private record RowOutcomes(int delivered, int deadLettered, int lost) {

        static RowOutcomes of(FinalState end, List<String> violations) {
            int lost = 0;
            int delivered = 0;
            int deadLettered = 0;
            for (FinalState.Row row : end.rows()) {
                if ("DELIVERED".equals(row.status())) {
                    delivered++;
                    if (!end.inbox().containsKey(row.idempotencyKey())) {
                        lost++;
                        addViolation(violations, Violation.LOST, "entry " + row.id() + " is DELIVERED but absent from the inbox");
                    }
                } else if ("DEAD_LETTERED".equals(row.status())) {
                    deadLettered++;
                } else {
                    lost++;
                    addViolation(violations, Violation.LOST, "entry " + row.id() + " ended " + row.status() + " (attempts "
                            + row.attemptCount() + ", claim token " + row.claimToken() + ")");
                }
            }
            return new RowOutcomes(delivered, deadLettered, lost);
        }
    }

    static boolean isTerminal(String completionKind) {
        return "DELIVERED".equals(completionKind) || "DEAD_LETTERED".equals(completionKind);
    }

    /**
     * Per partition key, entries whose first delivery (the inbox's {@code first_seq}) came before that of an
     * earlier entry (lower id) of the key. Entries never delivered, or without a key, are not ordered.
     */
    static int orderViolations(FinalState end, List<String> violations) {
        Map<String, List<FinalState.Row>> byKey = new TreeMap<>();
        for (FinalState.Row row : end.rows()) {
            FinalState.Received received = end.inbox().get(row.idempotencyKey());
            if (row.partitionKey() != null && received != null && received.firstSeq() > 0) {
                byKey.computeIfAbsent(row.partitionKey(), k -> new ArrayList<>()).add(row);
            }
        }
        int violationsFound = 0;
        for (Map.Entry<String, List<FinalState.Row>> e : byKey.entrySet()) {
            List<FinalState.Row> rows = new ArrayList<>(e.getValue());
            rows.sort(Comparator.comparingLong(FinalState.Row::id));
            FinalState.Row latest = null; // the earlier entry first delivered last so far
            for (FinalState.Row row : rows) {
                long seq = end.inbox().get(row.idempotencyKey()).firstSeq();
                if (latest != null && seq < end.inbox().get(latest.idempotencyKey()).firstSeq()) {
                    violationsFound++;
                    addViolation(violations, Violation.ORDER, "key " + e.getKey() + ": entry " + row.id()
                            + " was first delivered (inbox first_seq " + seq + ") before the earlier entry "
                            + latest.id() + " (first_seq " + end.inbox().get(latest.idempotencyKey()).firstSeq() + ")");
                } else {
                    latest = row;
                }
            }
        }
        return violationsFound;
    }

    private static List<Double> reclaimSeconds(List<HistoryEvent> events, List<FaultEvent> faults,
                                               Map<Long, List<Claim>> byEntry) {
        List<Double> seconds = new ArrayList<>();
        for (FaultEvent fault : faults) {
            if (!FaultEvent.KILL.equals(fault.fault()) && !FaultEvent.PAUSE.equals(fault.fault())
                    && !FaultEvent.PARTITION.equals(fault.fault())) {
                continue;
            }
            Set<Long> held = heldAt(events, fault.target(), fault.t());
            for (Long entry : held) {
                for (Claim c : byEntry.getOrDefault(entry, List.of())) {
                    if (!c.owner.equals(fault.target()) && c.t > fault.t()) {
                        seconds.add((c.t - fault.t()) / 1000.0);
                        break;
                    }
                }
            }
        }
        return seconds;
    }

    private static Set<Long> heldAt(List<HistoryEvent> events, String owner, long at) {
        Map<Long, Long> held = new LinkedHashMap<>();
        for (HistoryEvent e : events) {
            if (e.t() > at) {
                break;
            }
            if (!e.owner().equals(owner)) {
                continue;
            }
            switch (e.kind()) {
                case HistoryEvent.CLAIM -> held.put(e.entry(), e.fence());
                case HistoryEvent.COMPLETED, HistoryEvent.REFUSED, HistoryEvent.LOST, HistoryEvent.ABANDONED ->
                        held.remove(e.entry());
                default -> {
                }
            }
        }
        return held.keySet();
    }

    private static List<CheckResult.ClaimSpan> spans(List<Claim> claims) {
        List<CheckResult.ClaimSpan> spans = new ArrayList<>();
        for (Claim c : claims) {
            long endAt = c.endedAt != Long.MAX_VALUE ? c.endedAt : Math.max(c.t, c.t + (c.expiresAt - c.claimedAt));
            spans.add(new CheckResult.ClaimSpan(c.entry, c.owner, c.fence, c.t, endAt,
                    c.ending.isEmpty() ? "expired" : c.ending));
        }
        return spans;
    }

    /** Adds {@code [violationClass] line}, up to {@value #MAX_VIOLATION_LINES} lines. */
    static void addViolation(List<String> violations, String violationClass, String line) {
        if (violations.size() < MAX_VIOLATION_LINES) {
            violations.add("[" + violationClass + "] " + line);
        }
    }
}
