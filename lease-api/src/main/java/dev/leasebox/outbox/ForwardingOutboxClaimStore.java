package dev.leasebox.outbox;


import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * A claim store that forwards every operation to another: extend it to observe or change one
 * operation (timing claims, recording a history) without re-stating the rest. {@link #complete} goes
 * through {@link #completeAll}, so a subclass intercepts every completion in one place.
 */
public abstract class ForwardingOutboxClaimStore implements OutboxClaimStore {

    protected final OutboxClaimStore delegate;

    protected ForwardingOutboxClaimStore(OutboxClaimStore delegate) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
    }

    @Override
    public List<OutboxClaim> claim(ClaimSelection selection, ClaimRequest request) {
        return delegate.claim(selection, request);
    }

    @Override
    public CompletionOutcome complete(OutboxClaim claim, Completion completion) {
        return completeAll(List.of(new ClaimCompletion(claim, completion))).get(0);
    }

    @Override
    public List<CompletionOutcome> completeAll(List<ClaimCompletion> completions) {
        return delegate.completeAll(completions);
    }

    @Override
    public List<OutboxClaim> renewClaims(List<OutboxClaim> claims, Duration leaseDuration) {
        return delegate.renewClaims(claims, leaseDuration);
    }

    @Override
    public long highestFenceHighWater() {
        return delegate.highestFenceHighWater();
    }

    @Override
    public void addClaimLossListener(ClaimLossListener listener) {
        delegate.addClaimLossListener(listener);
    }
}
