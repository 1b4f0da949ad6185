package dev.leasebox.chaos.check;

import dev.leasebox.outbox.leased.ClaimMode;

import dev.leasebox.chaos.history.FaultEvent;
import dev.leasebox.chaos.history.HistoryEvent;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
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
     */
    public record Rules(boolean ordered, boolean leanPartitionClaims, boolean leanRowClaims) {
        /** Row leases with recorded claims (and recorded partition claims without ordering). */
        public static final Rules ROW_CLAIMS = new Rules(false, false, false);
        /** Row leases with lean claims ({@code --claim-mode lean}). */
        public static final Rules LEAN_ROW_CLAIMS = new Rules(false, false, true);

        /** Row leases (recorded or lean partition claims). */
        public Rules(boolean ordered, boolean leanPartitionClaims) {
            this(ordered, leanPartitionClaims, false);
        }

        public Rules {
            if (leanPartitionClaims && leanRowClaims) {
                throw new IllegalArgumentException("a run has lean row claims or lean partition claims, not both");
            }
        }

        boolean lean() {
            return leanPartitionClaims || leanRowClaims;
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
        /** Row claims: another worker granted the row, by real time, while the earlier holder's lease stood. */
        public static final String PREMATURE_TAKEOVER = "prematureTakeover";
        /** An entry first delivered before an earlier entry of its key (ordered runs). */
        public static final String ORDER = "orderViolation";
        /** No fault was injected. */
        public static final String NO_FAULT = "noFaultInjected";

        public static final List<String> ALL = List.of(LOST, STALE_COMPLETION, LEAN_AFTER_NEWER, LEAN_AFTER_LOSS,
                FENCE_REGRESSION, LEAN_FENCE_REGRESSION, UNEXPLAINED_DUPLICATE, PREMATURE_TAKEOVER, ORDER, NO_FAULT);

        private Violation() {
        }
    }

    /**
     * How far the common clocks of two JVMs (each the database's clock read at its start, advanced by its own
     * monotonic clock) may disagree, in millis: real-time comparisons between workers allow this much.
     */
    static final long COMMON_CLOCK_TOLERANCE_MILLIS = 200;

    /** A completion the store accepted, with when it was sent (its invocation) on the common clock. */
    private record Accepted(HistoryEvent done, long sentAt) {
    }

    private static final class Claim {
        final String owner;
        final long entry;
        final long fence;
        final long t;
        final long claimedAt;
        final int attempt;
        long expiresAt;
        private final long originalExpiresAt;
        boolean invoked;
        boolean mayHaveDelivered;
        boolean outcomeSeen;
        long endedAt = Long.MAX_VALUE; // completed (accepted or refused), lost or abandoned: common-clock millis
        String ending = "";
        long completedNonTerminalAt = Long.MAX_VALUE;
        long lostAt = Long.MAX_VALUE;
        /** Common-clock millis when the claim call began: no grant of this claim happened before. */
        final long askedAt;
        /**
         * The earliest, in real time (common clock), that this claim's lease can have ended: the claim call's start
         * plus the lease's length as granted ({@code expiresAt - claimedAt}, a difference on one clock, so whatever
         * that clock's offset), moved by each kept renewal to its invocation plus the length. Never a worker's clock.
         */
        long realExpiryLow;

        Claim(HistoryEvent e) {
            this.owner = e.owner();
            this.entry = e.entry();
            this.fence = e.fence();
            this.t = e.t();
            this.claimedAt = e.claimedAt();
            this.attempt = e.claimAttempt();
            this.expiresAt = e.expiresAt();
            this.originalExpiresAt = e.expiresAt();
            this.askedAt = e.askedAt() > 0 ? e.askedAt() : e.t();
            this.realExpiryLow = e.claimedAt() != 0 && e.expiresAt() != 0 ? askedAt + ttl() : Long.MIN_VALUE;
        }

        long ttl() {
            return originalExpiresAt - claimedAt;
        }
    }

    /** Checks a run of row claims ({@link Rules#ROW_CLAIMS}). */
    public static CheckResult check(List<HistoryEvent> history, List<FaultEvent> faults, FinalState end) {
        return check(history, faults, end, Rules.ROW_CLAIMS);
    }

    public static CheckResult check(List<HistoryEvent> history, List<FaultEvent> faults, FinalState end, Rules rules) {
        List<String> violations = new ArrayList<>();
        List<HistoryEvent> events = new ArrayList<>(history);
        events.sort(Comparator.comparingLong(HistoryEvent::t));

        Map<String, Claim> claims = new LinkedHashMap<>(); // by entry/fence: the latest such claim (lean: a re-read)
        List<Claim> allClaims = new ArrayList<>();
        Map<Long, List<Claim>> byEntry = new TreeMap<>();
        Map<String, Long> completeInvokedAt = new HashMap<>();
        Map<String, Long> renewInvokedAt = new HashMap<>();
        List<Accepted> completions = new ArrayList<>();
        int emissions = 0;
        int refused = 0;
        for (HistoryEvent e : events) {
            String key = e.entry() + "/" + e.fence();
            Claim c = claims.get(key);
            switch (e.kind()) {
                case HistoryEvent.CLAIM -> {
                    Claim claim = new Claim(e);
                    claims.put(key, claim);
                    allClaims.add(claim);
                    byEntry.computeIfAbsent(e.entry(), x -> new ArrayList<>()).add(claim);
                }
                case HistoryEvent.RENEW_INVOKE -> renewInvokedAt.put(key + "/" + e.owner(), e.t());
                case HistoryEvent.RENEW -> {
                    if (c != null) {
                        c.expiresAt = Math.max(c.expiresAt, e.expiresAt());
                        Long invoked = renewInvokedAt.get(key + "/" + e.owner());
                        // A row lease's renewal runs at or after its invocation for the lease's whole length. (A lean
                        // partition claim's renewal reports the slot lease's expiry, renewed by the keeper earlier: no bound.)
                        if (invoked != null && !rules.leanPartitionClaims() && c.realExpiryLow != Long.MIN_VALUE) {
                            c.realExpiryLow = Math.max(c.realExpiryLow, invoked + c.ttl());
                        }
                    }
                }
                case HistoryEvent.INVOKE -> {
                    emissions++;
                    if (c != null) {
                        c.invoked = true;
                    }
                }
                case HistoryEvent.OK, HistoryEvent.INFO -> {
                    if (c != null) {
                        c.mayHaveDelivered = true;
                        c.outcomeSeen = true;
                    }
                }
                case HistoryEvent.FAIL -> {
                    if (c != null) {
                        c.outcomeSeen = true;
                    }
                }
                case HistoryEvent.COMPLETE_INVOKE -> completeInvokedAt.put(key, e.t());
                case HistoryEvent.COMPLETED -> {
                    completions.add(new Accepted(e, completeInvokedAt.getOrDefault(key, e.t())));
                    if (c != null) {
                        // the completion committed somewhere between its invocation and this line: the claim can
                        // have ended as early as the invocation, and another worker may claim the row from then on
                        end(c, completeInvokedAt.getOrDefault(key, e.t()), e.detail());
                        if (!isTerminal(e.detail())) {
                            // The write happened after its invocation; if it was not stale (checked apart), it
                            // happened before any later claim, which the row allowed only once it was written.
                            c.completedNonTerminalAt = Math.min(c.completedNonTerminalAt,
                                    completeInvokedAt.getOrDefault(key, e.t()));
                        }
                    }
                }
                case HistoryEvent.REFUSED -> {
                    refused++;
                    if (c != null) {
                        end(c, e.t(), "refused: " + e.detail());
                    }
                }
                case HistoryEvent.LOST, HistoryEvent.ABANDONED -> {
                    Claim held = c != null ? c : latestOf(byEntry.get(e.entry()), e.owner(), e.t());
                    if (held != null) {
                        held.lostAt = Math.min(held.lostAt, e.t());
                        end(held, e.t(), e.kind());
                    }
                }
                default -> {
                }
            }
        }
        // An invocation with no outcome (killed or paused mid-call) may have delivered.
        allClaims.forEach(c -> c.mayHaveDelivered |= c.invoked && !c.outcomeSeen);

        List<FaultEvent> dataLoss = faults.stream().filter(FaultEvent::losesCoordinatorState).toList();
        int regressions = rules.lean()
                ? leanFenceRegressions(byEntry, completions, end, rules.leanRowClaims(), violations)
                : fenceRegressions(byEntry, end, violations);
        int[] leanStale = rules.leanRowClaims() ? leanStaleCompletions(completions, claims, violations) : new int[2];
        int stale = rules.leanRowClaims() ? leanStale[0] + leanStale[1] : staleCompletions(completions, byEntry, violations);
        int premature = rules.leanPartitionClaims() ? 0 : prematureTakeovers(byEntry, dataLoss, rules, violations);

        int duplicates = 0;
        int unexplained = 0;
        Map<String, Integer> causes = new TreeMap<>();
        for (List<Claim> entryClaims : byEntry.values()) {
            Claim lastDelivering = null;
            // Lean row claims write no claim on the row (its attempt count counts completions): history order.
            for (Claim g : rules.leanRowClaims() ? entryClaims : inRowOrder(entryClaims)) {
                // Row claims: a later claim of the row has a higher fence (a lower one is a regression, counted
                // apart). Lean claims: any other claim, a same-grant re-read or a zombie's stale read included.
                if (g.invoked && lastDelivering != null && lastDelivering != g
                        && (lastDelivering.fence < g.fence || rules.lean())) {
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
        int orderViolations = orderViolations(end, rules.ordered() ? violations : new ArrayList<>());
        int inboxDuplicates = end.inbox().values().stream().mapToInt(r -> Math.max(0, r.deliveries() - 1)).sum();
        int injected = (int) faults.stream().filter(FaultEvent::isInjection).count();
        if (injected == 0) {
            addViolation(violations, Violation.NO_FAULT, "no fault was injected: the scenario proved nothing");
        }
        Map<String, Integer> byClass = new LinkedHashMap<>();
        Violation.ALL.forEach(v -> byClass.put(v, 0));
        byClass.put(Violation.LOST, lost);
        byClass.put(Violation.UNEXPLAINED_DUPLICATE, unexplained);
        byClass.put(Violation.PREMATURE_TAKEOVER, premature);
        byClass.put(Violation.ORDER, rules.ordered() ? orderViolations : 0);
        byClass.put(Violation.NO_FAULT, injected == 0 ? 1 : 0);
        byClass.put(rules.lean() ? Violation.LEAN_FENCE_REGRESSION : Violation.FENCE_REGRESSION, regressions);
        if (!rules.leanRowClaims()) {
            byClass.put(Violation.STALE_COMPLETION, stale);
        } else {
            byClass.put(Violation.LEAN_AFTER_NEWER, leanStale[0]);
            byClass.put(Violation.LEAN_AFTER_LOSS, leanStale[1]);
        }
        return new CheckResult(end.rows().size(), delivered, deadLettered, lost, stale, regressions, emissions,
                duplicates, causes, unexplained, inboxDuplicates, refused, injected,
                reclaimSeconds(events, faults, byEntry), violations, spans(allClaims), orderViolations, rules.ordered(),
                premature, byClass);
    }

    /**
     * A row's claims in the database's order: its claim attempt count (incremented by the claiming write
     * itself); history times only approximate it, as each line is written after its write.
     */
    private static List<Claim> inRowOrder(List<Claim> claims) {
        List<Claim> ordered = new ArrayList<>(claims);
        ordered.sort(Comparator.<Claim>comparingInt(c -> c.attempt).thenComparingLong(c -> c.t));
        return ordered;
    }

    private static void end(Claim c, long t, String how) {
        if (t < c.endedAt) {
            c.endedAt = t;
            c.ending = how;
        }
    }

    private static Claim latestOf(List<Claim> claims, String owner, long before) {
        if (claims == null) {
            return null;
        }
        Claim latest = null;
        for (Claim c : claims) {
            if (c.owner.equals(owner) && c.t <= before) {
                latest = c;
            }
        }
        return latest;
    }

    static boolean isTerminal(String completionKind) {
        return "DELIVERED".equals(completionKind) || "DEAD_LETTERED".equals(completionKind);
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

    /**
     * Row claims: a claim g by another worker whose claim line was written while, by real time, an earlier
     * claim f of the row still certainly stood: f was granted before g's claim call began ({@code f.t <=
     * g.askedAt}), f's lease cannot have ended yet ({@code g.t < f.realExpiryLow}), and f's holder had neither
     * finished, lost nor abandoned it. Only the common clock and lease lengths are used, so a taker whose wall
     * clock runs ahead cannot hide an early takeover. Lean claims excuse a takeover across coordinator data loss.
     */
    private static int prematureTakeovers(Map<Long, List<Claim>> byEntry, List<FaultEvent> dataLoss, Rules rules,
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

    /**
     * Lean row claims ({@code ClaimMode.LEAN}): what the store promises is exactly that a completion is written
     * only with a fence above every fence that completed the row before, and that a worker that knows its lease is
     * gone writes nothing. So an accepted completion is a violation when an accepted completion of the row under a
     * higher fence, or any accepted terminal one, had ended before it was sent ({@code [0]},
     * {@link Violation#LEAN_AFTER_NEWER}), or when its own worker had recorded the claim lost or abandoned before
     * sending it ({@code [1]}, {@link Violation#LEAN_AFTER_LOSS}). A stale holder's completion accepted while no
     * newer holder had completed is allowed, a stale DEAD_LETTERED beating a concurrent delivery included.
     */
    private static int[] leanStaleCompletions(List<Accepted> completions, Map<String, Claim> claims,
                                              List<String> violations) {
        int[] found = new int[2];
        for (Accepted a : completions) {
            HistoryEvent done = a.done();
            for (Accepted b : completions) {
                if (b == a || b.done().entry() != done.entry() || b.done().t() >= a.sentAt()) {
                    continue;
                }
                if (b.done().fence() > done.fence() || (isTerminal(b.done().detail()) && b.done().fence() != done.fence())) {
                    found[0]++;
                    addViolation(violations, Violation.LEAN_AFTER_NEWER, "entry " + done.entry() + " " + done.detail()
                            + " accepted under fence " + done.fence() + " from " + done.owner() + ", sent at " + a.sentAt()
                            + " after " + b.done().owner() + "'s " + b.done().detail() + " under fence " + b.done().fence()
                            + " was accepted at " + b.done().t());
                    break;
                }
            }
            Claim own = claims.get(done.entry() + "/" + done.fence());
            if (own != null && own.owner.equals(done.owner()) && own.lostAt < a.sentAt()) {
                found[1]++;
                addViolation(violations, Violation.LEAN_AFTER_LOSS, "entry " + done.entry() + " " + done.detail()
                        + " accepted under fence " + done.fence() + " from " + done.owner() + ", which had recorded the claim "
                        + "lost or abandoned at " + own.lostAt + " and sent it at " + a.sentAt());
            }
        }
        return found;
    }

    private static int fenceRegressions(Map<Long, List<Claim>> byEntry, FinalState end, List<String> violations) {
        Map<Long, Long> highWater = new HashMap<>();
        end.rows().forEach(r -> highWater.put(r.id(), r.fenceHighWater()));
        int regressions = 0;
        for (Map.Entry<Long, List<Claim>> e : byEntry.entrySet()) {
            long max = 0;
            boolean regressed = false;
            for (Claim c : inRowOrder(e.getValue())) {
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
    private static int leanFenceRegressions(Map<Long, List<Claim>> byEntry, List<Accepted> completions, FinalState end,
                                            boolean leanRows, List<String> violations) {
        Map<Long, Long> highWater = new HashMap<>();
        end.rows().forEach(r -> highWater.put(r.id(), r.fenceHighWater()));
        Map<Long, List<Accepted>> acceptedByEntry = new TreeMap<>();
        completions.forEach(a -> acceptedByEntry.computeIfAbsent(a.done().entry(), x -> new ArrayList<>()).add(a));
        java.util.Set<Long> regressed = new java.util.TreeSet<>();
        for (Map.Entry<Long, List<Accepted>> e : acceptedByEntry.entrySet()) {
            List<Accepted> row = e.getValue();
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
                        regressed.add(e.getKey());
                        addViolation(violations, Violation.LEAN_FENCE_REGRESSION, "entry " + e.getKey() + " completed ("
                                + second.done().detail() + ") under fence " + g + " by " + second.done().owner()
                                + " after a completion under fence " + f + " by " + first.done().owner()
                                + (g == f ? " (the same token from another grant)" : ""));
                    }
                }
            }
        }
        Set<Long> finished = new java.util.HashSet<>();
        end.rows().stream().filter(r -> isTerminal(r.status())).forEach(r -> finished.add(r.id()));
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

    private static int staleCompletions(List<Accepted> completions, Map<Long, List<Claim>> byEntry,
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
        return stale;
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
    private static void addViolation(List<String> violations, String violationClass, String line) {
        if (violations.size() < MAX_VIOLATION_LINES) {
            violations.add("[" + violationClass + "] " + line);
        }
    }
}
