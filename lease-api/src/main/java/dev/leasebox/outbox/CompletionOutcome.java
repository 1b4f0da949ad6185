package dev.leasebox.outbox;

import java.util.Objects;
import java.util.Optional;

/**
 * What became of a completion. A lost race is an outcome, not an exception, and never overwrites
 * the row: only {@link Completed} changed anything.
 *
 * <p>Refusals, in the order a store checks them: {@link Missing} (no such row), {@link AlreadyTerminal}
 * (DELIVERED or DEAD_LETTERED), {@link Reclaimed} (the row carries a newer token: the claim expired
 * and another worker took it), {@link StaleToken} (the row carries no token or a different,
 * non-newer one: the claim was completed or released already), {@link NotCompletable} (the token
 * matches but the row's status cannot be completed by the claim path, e.g. FAILED).
 */
public sealed interface CompletionOutcome {

    /** Whether the transition was written. */
    default boolean isCompleted() {
        return this instanceof Completed;
    }

    /** The transition was written; {@code entry} is the row after it. */
    record Completed(OutboxEntry entry) implements CompletionOutcome {
        public Completed {
            Objects.requireNonNull(entry, "entry");
        }
    }

    /**
     * The row's token is absent or is not the presented one (and not newer); for a fenced completion,
     * the row's fence high-water mark equals the presented fence (that fence wrote already). Nothing changed.
     */
    record StaleToken(long presentedToken, OutboxEntry current) implements CompletionOutcome {
        public StaleToken {
            Objects.requireNonNull(current, "current");
        }
    }

    /**
     * The row was reclaimed by a newer claim (its token is greater; for a fenced completion, a newer
     * fence has written to it). Nothing changed.
     */
    record Reclaimed(long presentedToken, OutboxEntry current) implements CompletionOutcome {
        public Reclaimed {
            Objects.requireNonNull(current, "current");
        }
    }

    /** The row is DELIVERED or DEAD_LETTERED already. Nothing changed. */
    record AlreadyTerminal(long presentedToken, OutboxEntry current) implements CompletionOutcome {
        public AlreadyTerminal {
            Objects.requireNonNull(current, "current");
        }
    }

    /** The row's status cannot be completed by the claim path. Nothing changed. */
    record NotCompletable(long presentedToken, OutboxEntry current) implements CompletionOutcome {
        public NotCompletable {
            Objects.requireNonNull(current, "current");
        }
    }

    /** No row with that id exists. */
    record Missing(long presentedToken, long entryId) implements CompletionOutcome {
    }

    /**
     * Decides a completion against the row as it stands: the one refusal rule, shared by stores
     * that can read and write atomically (in memory) and by SQL stores that classify a refused
     * update after the fact.
     *
     * @return the refusal, or empty when the completion may be written
     */
    static Optional<CompletionOutcome> refusalFor(OutboxEntry current, long presentedToken) {
        if (current.status().isTerminal()) {
            return Optional.of(new AlreadyTerminal(presentedToken, current));
        }
        if (current.claimToken().isEmpty() || current.claimToken().getAsLong() != presentedToken) {
            if (current.claimToken().isPresent() && current.claimToken().getAsLong() > presentedToken) {
                return Optional.of(new Reclaimed(presentedToken, current));
            }
            return Optional.of(new StaleToken(presentedToken, current));
        }
        if (!current.status().isClaimCompletable()) {
            return Optional.of(new NotCompletable(presentedToken, current));
        }
        return Optional.empty();
    }

    /**
     * Decides a <em>fenced</em> completion ({@code FencedOutboxStore.completeAllFenced}, the lean claim
     * mode) against the row as it stands. No claim record is involved: the presented fence must be
     * strictly above the row's fence high-water mark, i.e. newer than every claim recorded on the row
     * and every fenced completion written to it. In check order: {@link AlreadyTerminal},
     * {@link Reclaimed} (a newer fence wrote), {@link StaleToken} (this very fence wrote already),
     * {@link NotCompletable}.
     *
     * @return the refusal, or empty when the completion may be written
     */
    static Optional<CompletionOutcome> fencedRefusalFor(OutboxEntry current, long presentedFence) {
        if (current.status().isTerminal()) {
            return Optional.of(new AlreadyTerminal(presentedFence, current));
        }
        if (current.fenceHighWater() > presentedFence) {
            return Optional.of(new Reclaimed(presentedFence, current));
        }
        if (current.fenceHighWater() == presentedFence) {
            return Optional.of(new StaleToken(presentedFence, current));
        }
        if (!current.status().isClaimCompletable()) {
            return Optional.of(new NotCompletable(presentedFence, current));
        }
        return Optional.empty();
    }
}
