package dev.leasebox.chaos.check;

import dev.leasebox.chaos.history.HistoryEvent;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The workers' histories replayed into claims: each claim with its emissions, outcomes, renewals and ending,
 * and the completions the store accepted. Only what the lines say; judging them is the checks' part.
 */
final class ClaimHistory {

    private final HistoryChecker.Rules rules;
    private final Map<String, Claim> latestByFence = new LinkedHashMap<>(); // by entry/fence: the latest such claim (lean: a re-read)
    private final List<Claim> all = new ArrayList<>();
    private final Map<Long, List<Claim>> byEntry = new TreeMap<>();
    private final Map<String, Long> completeInvokedAt = new HashMap<>();
    private final Map<String, Long> renewInvokedAt = new HashMap<>();
    private final List<Accepted> completions = new ArrayList<>();
    private int emissions;
    private int refused;

    private ClaimHistory(HistoryChecker.Rules rules) {
        this.rules = rules;
    }

    /** Replays {@code events}, sorted by common-clock time. */
    static ClaimHistory replay(List<HistoryEvent> events, HistoryChecker.Rules rules) {
        ClaimHistory history = new ClaimHistory(rules);
        events.forEach(history::apply);
        // An invocation with no outcome (killed or paused mid-call) may have delivered.
        history.all.forEach(c -> c.mayHaveDelivered |= c.invoked && !c.outcomeSeen);
        return history;
    }

    /** By {@code entry/fence}, the latest claim recorded under that fence. */
    Map<String, Claim> latestByFence() {
        return latestByFence;
    }

    /** Every claim, in history order. */
    List<Claim> all() {
        return all;
    }

    /** Per entry, in id order, its claims in history order. */
    Map<Long, List<Claim>> byEntry() {
        return byEntry;
    }

    List<Accepted> completions() {
        return completions;
    }

    int emissions() {
        return emissions;
    }

    int refused() {
        return refused;
    }

    private void apply(HistoryEvent e) {
        String key = e.entry() + "/" + e.fence();
        Claim c = latestByFence.get(key);
        switch (e.kind()) {
            case HistoryEvent.CLAIM -> claimed(key, e);
            case HistoryEvent.RENEW_INVOKE -> renewInvokedAt.put(key + "/" + e.owner(), e.t());
            case HistoryEvent.RENEW -> renewed(c, key, e);
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
            case HistoryEvent.COMPLETED -> completed(c, key, e);
            case HistoryEvent.REFUSED -> {
                refused++;
                if (c != null) {
                    c.end(e.t(), "refused: " + e.detail());
                }
            }
            case HistoryEvent.LOST, HistoryEvent.ABANDONED -> lost(c, e);
            default -> {
            }
        }
    }

    private void claimed(String key, HistoryEvent e) {
        Claim claim = new Claim(e);
        latestByFence.put(key, claim);
        all.add(claim);
        byEntry.computeIfAbsent(e.entry(), x -> new ArrayList<>()).add(claim);
    }

    private void renewed(Claim c, String key, HistoryEvent e) {
        if (c == null) {
            return;
        }
        c.expiresAt = Math.max(c.expiresAt, e.expiresAt());
        Long invoked = renewInvokedAt.get(key + "/" + e.owner());
        // A row lease's renewal runs at or after its invocation for the lease's whole length. (A lean
        // partition claim's renewal reports the slot lease's expiry, renewed by the keeper earlier: no bound.)
        if (invoked != null && !rules.leanPartitionClaimsOf(c.owner) && c.realExpiryLow != Long.MIN_VALUE) {
            c.realExpiryLow = Math.max(c.realExpiryLow, invoked + c.ttl());
        }
    }

    private void completed(Claim c, String key, HistoryEvent e) {
        long sentAt = completeInvokedAt.getOrDefault(key, e.t());
        completions.add(new Accepted(e, sentAt));
        if (c == null) {
            return;
        }
        // the completion committed somewhere between its invocation and this line: the claim can
        // have ended as early as the invocation, and another worker may claim the row from then on
        c.end(sentAt, e.detail());
        if (!HistoryChecker.isTerminal(e.detail())) {
            // The write happened after its invocation; if it was not stale (checked apart), it
            // happened before any later claim, which the row allowed only once it was written.
            c.completedNonTerminalAt = Math.min(c.completedNonTerminalAt, sentAt);
        }
    }

    private void lost(Claim c, HistoryEvent e) {
        Claim held = c != null ? c : latestOf(byEntry.get(e.entry()), e.owner(), e.t());
        if (held != null) {
            held.lostAt = Math.min(held.lostAt, e.t());
            held.end(e.t(), e.kind());
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
}
