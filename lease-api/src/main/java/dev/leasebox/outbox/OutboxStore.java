package dev.leasebox.outbox;

import java.util.List;
import java.util.Optional;

/**
 * The selection-only outbox store: enough for one active worker, or for workers that read disjoint
 * slices. Selection does not claim anything, so two workers selecting the same row may both emit
 * it: multi-worker drains use {@link OutboxClaimStore}.
 *
 * <p>"Now" is the store's injected {@link java.time.Clock}.
 */
public interface OutboxStore {

    /** Adds a PENDING entry; fails if its idempotency key exists already. */
    OutboxEntry enqueue(OutboxMessage message);

    /** PENDING and due DEFERRED entries not under an unexpired claim, oldest first. Reads only. */
    List<OutboxEntry> findPending(int limit);

    /** Due RETRYABLE_FAILURE entries not under an unexpired claim, oldest first. Reads only. */
    List<OutboxEntry> findRetryReady(int limit);

    /**
     * Writes {@code entry}'s emission state unconditionally (the non-claiming path). The claim and
     * fence fields are not taken from {@code entry}.
     *
     * @throws java.util.NoSuchElementException when no row has its id
     */
    OutboxEntry save(OutboxEntry entry);

    /** The row with {@code id}, if any. */
    Optional<OutboxEntry> find(long id);
}
