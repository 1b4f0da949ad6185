package dev.leasebox.drain;

import dev.leasebox.outbox.OutboxClaim;

import java.util.List;

import dev.leasebox.outbox.Completion;
import dev.leasebox.outbox.CompletionOutcome;
import dev.leasebox.provider.Envelope;
import dev.leasebox.provider.ProviderOutcome;

import java.time.Duration;
import java.util.Set;

/**
 * Hooks for metrics and logs; every method does nothing by default.
 *
 * <p>Called on drain threads (emission and completion hooks on the cycle's thread, loss hooks on
 * the renewal thread or the store's callback thread). Implementations must be thread-safe and
 * quick; an exception thrown by a hook is logged and ignored, it never changes what the drain does.
 */
public interface DrainListener {

    /** A listener that does nothing. */
    DrainListener NO_OP = new DrainListener() {
    };

    /**
     * These listeners as one, each hook called on each in order. A listener that throws keeps the
     * ones after it from that call; the drain's guard logs and ignores it as for a single listener.
     */
    static DrainListener all(DrainListener... listeners) {
        return new CompositeListener(List.of(listeners));
    }

    /** A cycle took {@code count} entries (claimed, or selected on the non-claiming path); never 0. */
    default void batchClaimed(int count) {
    }

    /** These claims were just granted and recorded (claim path only; after {@link #batchClaimed}). */
    default void claimed(List<OutboxClaim> claims) {
    }

    /** The provider is about to be called with {@code envelope} (an "invoke" in a history). */
    default void emitting(Envelope envelope) {
    }

    /** The provider returned {@code outcome} (exceptions already classified) after {@code latency}. */
    default void emitted(Envelope envelope, ProviderOutcome outcome, Duration latency) {
    }

    /** {@code completion} of entry {@code entryId} was written; {@code outcome} is {@link CompletionOutcome.Completed}. */
    default void completed(long entryId, Completion completion, CompletionOutcome outcome) {
    }

    /**
     * The store refused {@code completion} (a stale token: the claim expired and was reclaimed, or
     * the row is terminal already). Nothing was written; the drain never retries it.
     */
    default void completionRefused(long entryId, Completion completion, CompletionOutcome refusal) {
    }

    /** These claims were lost (renewal refused, lease loss reported, local deadline passed). */
    default void claimsLost(Set<Long> entryIds, String cause) {
    }

    /**
     * This worker's claims just took these rows over from earlier claims still on them, expired and never
     * completed: their holder died, stalled past its lease, or lost it, and may have emitted them already (the
     * receiver can see a duplicate). Each is a lease loss, counted by the worker that takes the row, however
     * short the time the lapsed claim stood. Told for recorded claims (the {@code database} backend on
     * PostgreSQL and MariaDB, recorded row leases); lean claims leave nothing on the row to tell it by
     * (decision 0040). Called on the claiming thread, during the claim, before {@link #batchClaimed}.
     */
    default void claimsTakenOver(Set<Long> entryIds) {
    }

    /** These claims were abandoned: nothing is written for them, and they are reclaimed after expiry. */
    default void claimsAbandoned(Set<Long> entryIds, String reason) {
    }

    /** These claims were handed back unemitted (shutdown, claims at risk). */
    default void claimsReleased(Set<Long> entryIds, String reason) {
    }

    /** Entry {@code entryId} was dead-lettered (the write succeeded). */
    default void deadLettered(long entryId, String reason) {
    }

    /** A polling loop found nothing to do and is backing off. */
    default void idlePoll() {
    }

    /** A polling loop's cycle failed (e.g. the store was unreachable); the loop backs off and tries again. */
    default void cycleFailed(RuntimeException error) {
    }
}
