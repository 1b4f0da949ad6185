package dev.leasebox.bench;

import dev.leasebox.outbox.ClaimCompletion;
import dev.leasebox.outbox.ClaimLossListener;
import dev.leasebox.outbox.ClaimRequest;
import dev.leasebox.outbox.ClaimSelection;
import dev.leasebox.outbox.Completion;
import dev.leasebox.outbox.CompletionOutcome;
import dev.leasebox.outbox.OutboxClaim;
import dev.leasebox.outbox.OutboxClaimStore;
import dev.leasebox.outbox.OutboxEntry;
import dev.leasebox.outbox.OutboxMessage;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * An {@link OutboxClaimStore} that times every {@link #claim} call of the store it wraps — for the
 * {@code database} backend one SQL statement, for an external backend the whole claim path
 * (candidates, lease acquisition, claim recording) — and changes nothing else.
 */
final class TimedClaimStore implements OutboxClaimStore {

    private final OutboxClaimStore delegate;
    private final LatencyRecorder latencies;

    TimedClaimStore(OutboxClaimStore delegate, LatencyRecorder latencies) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
        this.latencies = Objects.requireNonNull(latencies, "latencies");
    }

    @Override
    public List<OutboxClaim> claim(ClaimSelection selection, ClaimRequest request) {
        long started = System.nanoTime();
        List<OutboxClaim> claims = delegate.claim(selection, request);
        latencies.record(System.nanoTime() - started);
        return claims;
    }

    @Override
    public CompletionOutcome complete(OutboxClaim claim, Completion completion) {
        return delegate.complete(claim, completion);
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

    @Override
    public OutboxEntry enqueue(OutboxMessage message) {
        return delegate.enqueue(message);
    }

    @Override
    public List<OutboxEntry> findPending(int limit) {
        return delegate.findPending(limit);
    }

    @Override
    public List<OutboxEntry> findRetryReady(int limit) {
        return delegate.findRetryReady(limit);
    }

    @Override
    public OutboxEntry save(OutboxEntry entry) {
        return delegate.save(entry);
    }

    @Override
    public Optional<OutboxEntry> find(long id) {
        return delegate.find(id);
    }
}
