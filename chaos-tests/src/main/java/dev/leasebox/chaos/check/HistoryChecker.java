package dev.leasebox.chaos.check;

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
 * </ul>
 */
public final class HistoryChecker {

    private static final int MAX_VIOLATION_LINES = 50;

    private HistoryChecker() {
    }

    private static final class Claim {
        final String owner;
        final long entry;
        final long fence;
        final long t;
        final long claimedAt;
        final int attempt;
        long expiresAt;
        boolean invoked;
        boolean mayHaveDelivered;
        boolean outcomeSeen;
        long endedAt = Long.MAX_VALUE; // completed (accepted or refused), lost or abandoned: common-clock millis
        String ending = "";
        long completedNonTerminalAt = Long.MAX_VALUE;
        long lostAt = Long.MAX_VALUE;

        Claim(HistoryEvent e) {
            this.owner = e.owner();
            this.entry = e.entry();
            this.fence = e.fence();
            this.t = e.t();
            this.claimedAt = e.claimedAt();
            this.attempt = e.claimAttempt();
            this.expiresAt = e.expiresAt();
        }
    }

    public static CheckResult check(List<HistoryEvent> history, List<FaultEvent> faults, FinalState end) {
        List<String> violations = new ArrayList<>();
        List<HistoryEvent> events = new ArrayList<>(history);
        events.sort(Comparator.comparingLong(HistoryEvent::t));

        Map<String, Claim> claims = new LinkedHashMap<>(); // by entry/fence
        Map<Long, List<Claim>> byEntry = new TreeMap<>();
        Map<String, Long> completeInvokedAt = new HashMap<>();
        List<HistoryEvent> completions = new ArrayList<>();
        int emissions = 0;
        int refused = 0;
        for (HistoryEvent e : events) {
            String key = e.entry() + "/" + e.fence();
            Claim c = claims.get(key);
            switch (e.kind()) {
                case HistoryEvent.CLAIM -> {
                    Claim claim = new Claim(e);
                    claims.put(key, claim);
                    byEntry.computeIfAbsent(e.entry(), x -> new ArrayList<>()).add(claim);
                }
                case HistoryEvent.RENEW -> {
                    if (c != null) {
                        c.expiresAt = Math.max(c.expiresAt, e.expiresAt());
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
                    completions.add(e);
                    if (c != null) {
                        end(c, e.t(), e.detail());
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
        claims.values().forEach(c -> c.mayHaveDelivered |= c.invoked && !c.outcomeSeen);

        int regressions = fenceRegressions(byEntry, end, violations);
        int stale = staleCompletions(completions, byEntry, completeInvokedAt, violations);

        int duplicates = 0;
        int unexplained = 0;
        Map<String, Integer> causes = new TreeMap<>();
        for (List<Claim> entryClaims : byEntry.values()) {
            Claim lastDelivering = null;
            for (Claim g : inRowOrder(entryClaims)) {
                if (g.invoked && lastDelivering != null && lastDelivering.fence < g.fence) {
                    duplicates++;
                    String cause = explain(lastDelivering, g);
                    if (cause.isEmpty()) {
                        unexplained++;
                        addViolation(violations, "unexplained duplicate: entry " + g.entry + " emitted under fence "
                                + lastDelivering.fence + " by " + lastDelivering.owner + " (expires "
                                + lastDelivering.expiresAt + ") and again under fence " + g.fence + " by " + g.owner
                                + " (claimed " + g.claimedAt + ")");
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
                    addViolation(violations, "lost: entry " + row.id() + " is DELIVERED but absent from the inbox");
                }
            } else if ("DEAD_LETTERED".equals(row.status())) {
                deadLettered++;
            } else {
                lost++;
                addViolation(violations, "lost: entry " + row.id() + " ended " + row.status() + " (attempts "
                        + row.attemptCount() + ", claim token " + row.claimToken() + ")");
            }
        }
        int inboxDuplicates = end.inbox().values().stream().mapToInt(r -> Math.max(0, r.deliveries() - 1)).sum();
        int injected = (int) faults.stream().filter(FaultEvent::isInjection).count();
        if (injected == 0) {
            addViolation(violations, "no fault was injected: the scenario proved nothing");
        }
        return new CheckResult(end.rows().size(), delivered, deadLettered, lost, stale, regressions, emissions,
                duplicates, causes, unexplained, inboxDuplicates, refused, injected,
                reclaimSeconds(events, faults, byEntry), violations, spans(claims));
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

    private static String explain(Claim f, Claim g) {
        if (f.completedNonTerminalAt <= g.t) {
            return "retry";
        }
        if (f.lostAt <= g.t) {
            return "loss";
        }
        // Renewals count only when kept (RENEW): a refused renewal moved no expiry on the row.
        if (f.expiresAt > 0 && g.claimedAt > 0 && f.expiresAt <= g.claimedAt) {
            return "expiry";
        }
        return "";
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
                    addViolation(violations, "fence regression: entry " + e.getKey() + " claimed under fence " + c.fence
                            + " by " + c.owner + " after fence " + max);
                }
                max = Math.max(max, c.fence);
            }
            Long mark = highWater.get(e.getKey());
            if (mark != null && mark < max) {
                regressed = true;
                addViolation(violations, "fence regression: entry " + e.getKey() + " ends with fence high-water " + mark
                        + " below recorded fence " + max);
            }
            if (regressed) {
                regressions++;
            }
        }
        return regressions;
    }

    private static int staleCompletions(List<HistoryEvent> completions, Map<Long, List<Claim>> byEntry,
                                        Map<String, Long> completeInvokedAt, List<String> violations) {
        int stale = 0;
        for (HistoryEvent done : completions) {
            long sentAt = completeInvokedAt.getOrDefault(done.entry() + "/" + done.fence(), done.t());
            boolean terminal = isTerminal(done.detail());
            for (Claim later : byEntry.getOrDefault(done.entry(), List.of())) {
                if (later.fence > done.fence() && (terminal || later.t < sentAt)) {
                    stale++;
                    addViolation(violations, "stale completion accepted: entry " + done.entry() + " " + done.detail()
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

    private static List<CheckResult.ClaimSpan> spans(Map<String, Claim> claims) {
        List<CheckResult.ClaimSpan> spans = new ArrayList<>();
        for (Claim c : claims.values()) {
            long endAt = c.endedAt != Long.MAX_VALUE ? c.endedAt : Math.max(c.t, c.t + (c.expiresAt - c.claimedAt));
            spans.add(new CheckResult.ClaimSpan(c.entry, c.owner, c.fence, c.t, endAt,
                    c.ending.isEmpty() ? "expired" : c.ending));
        }
        return spans;
    }

    private static void addViolation(List<String> violations, String line) {
        if (violations.size() < MAX_VIOLATION_LINES) {
            violations.add(line);
        }
    }
}
