package dev.leasebox.drain;

import dev.leasebox.outbox.OutboxClaim;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;

/**
 * The claims of one batch while it is emitted: their latest expiry (renewals move it) and which of
 * them are lost.
 *
 * <p>A claim is lost once a renewal leaves it out, once the store reports its lease lost, or once
 * the drain's clock reaches its expiry minus the safety margin. Loss is final for the batch. Renewal
 * and {@link #finish()} are serialized, so no renewal is in flight when the batch's results are
 * written.
 */
final class ClaimedBatch {

    private static final Logger log = LoggerFactory.getLogger(ClaimedBatch.class);

    private final Map<Long, OutboxClaim> current = new ConcurrentHashMap<>();
    private final Map<Long, String> lost = new ConcurrentHashMap<>();
    private final List<Long> order;
    private final Duration safetyMargin;
    private final DrainListener listener;
    private final ReentrantLock renewalLock = new ReentrantLock();
    private boolean finished; // guarded by renewalLock

    ClaimedBatch(List<OutboxClaim> claims, Duration safetyMargin, DrainListener listener) {
        List<Long> ids = new ArrayList<>(claims.size());
        for (OutboxClaim claim : claims) {
            current.put(claim.entryId(), claim);
            ids.add(claim.entryId());
        }
        this.order = List.copyOf(ids);
        this.safetyMargin = safetyMargin;
        this.listener = listener;
    }

    /** The batch's claims, in the order claimed, with their latest expiry. */
    List<OutboxClaim> claims() {
        List<OutboxClaim> claims = new ArrayList<>(order.size());
        for (Long id : order) {
            claims.add(current.get(id));
        }
        return claims;
    }

    /** The claim on {@code entryId} with its latest expiry. */
    OutboxClaim current(long entryId) {
        return current.get(entryId);
    }

    /** Why the claim on {@code entryId} is lost at {@code now}, or empty while it still stands. */
    Optional<String> lossOf(long entryId, Instant now) {
        String cause = lost.get(entryId);
        if (cause != null) {
            return Optional.of(cause);
        }
        OutboxClaim claim = current.get(entryId);
        Instant deadline = claim.expiresAt().minus(safetyMargin);
        if (!now.isBefore(deadline)) {
            String passed = "local deadline " + deadline + " passed (claim expires " + claim.expiresAt() + ")";
            markLost(Set.of(entryId), passed);
            return Optional.of(lost.get(entryId));
        }
        return Optional.empty();
    }

    /** Marks those of {@code entryIds} that belong to this batch lost; tells the listener about newly lost ones. */
    void markLost(Set<Long> entryIds, String cause) {
        Set<Long> newlyLost = new LinkedHashSet<>();
        for (Long id : entryIds) {
            if (current.containsKey(id) && lost.putIfAbsent(id, cause) == null) {
                newlyLost.add(id);
            }
        }
        if (!newlyLost.isEmpty()) {
            listener.claimsLost(Set.copyOf(newlyLost), cause);
        }
    }

    /**
     * Renews the claims not lost yet through {@code renew} (one store call); those it leaves out are
     * lost. A failing call loses nothing by itself: the claims then lapse at their local deadline.
     */
    void renew(Function<List<OutboxClaim>, List<OutboxClaim>> renew) {
        renewalLock.lock();
        try {
            if (finished) {
                return;
            }
            List<OutboxClaim> held = new ArrayList<>();
            for (Long id : order) {
                if (!lost.containsKey(id)) {
                    held.add(current.get(id));
                }
            }
            if (held.isEmpty()) {
                return;
            }
            Set<Long> kept = new LinkedHashSet<>();
            for (OutboxClaim renewed : renew.apply(held)) {
                if (current.containsKey(renewed.entryId())) {
                    current.put(renewed.entryId(), renewed);
                    kept.add(renewed.entryId());
                }
            }
            Set<Long> refused = new LinkedHashSet<>();
            held.forEach(c -> {
                if (!kept.contains(c.entryId())) {
                    refused.add(c.entryId());
                }
            });
            markLost(refused, "renewal refused by the store (the claim expired or was taken over)");
        } catch (RuntimeException e) {
            log.warn("Renewing {} claims failed ({}); they count as lost once their local deadline passes",
                    order.size(), e.toString());
        } finally {
            renewalLock.unlock();
        }
    }

    /** Stops renewals; waits for one in flight. After this the claims' expiry no longer changes. */
    void finish() {
        renewalLock.lock();
        try {
            finished = true;
        } finally {
            renewalLock.unlock();
        }
    }

    /** Entry ids in claim order. */
    List<Long> entryIds() {
        return order;
    }
}
