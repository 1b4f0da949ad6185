package dev.leasebox.bench;

import dev.leasebox.outbox.ClaimCompletion;
import dev.leasebox.outbox.ClaimSelection;
import dev.leasebox.outbox.Completion;
import dev.leasebox.outbox.CompletionOutcome;
import dev.leasebox.outbox.OutboxClaim;
import dev.leasebox.outbox.OutboxEntry;
import dev.leasebox.outbox.OutboxMessage;
import dev.leasebox.outbox.CandidateQuery;
import dev.leasebox.outbox.ClaimGrant;
import dev.leasebox.outbox.ClaimRecording;
import dev.leasebox.outbox.FencedOutboxStore;

import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

/** A {@link FencedOutboxStore} that times each database phase of the leased claim path and changes nothing. */
final class TimedFencedStore implements FencedOutboxStore {

    private final FencedOutboxStore delegate;
    private final PhaseTimer timer;

    TimedFencedStore(FencedOutboxStore delegate, PhaseTimer timer) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
        this.timer = Objects.requireNonNull(timer, "timer");
    }

    private <T> T timed(String phase, Supplier<T> call) {
        long started = System.nanoTime();
        try {
            return call.get();
        } finally {
            timer.record(phase, System.nanoTime() - started);
        }
    }

    @Override
    public List<Long> findClaimCandidateIds(CandidateQuery query) {
        return timed("candidates", () -> delegate.findClaimCandidateIds(query));
    }

    @Override
    public List<OutboxEntry> findEligible(ClaimSelection selection, Collection<Long> ids) {
        return timed("eligible", () -> delegate.findEligible(selection, ids));
    }

    @Override
    public ClaimRecording recordClaims(ClaimSelection selection, List<ClaimGrant> grants) {
        return timed("record", () -> delegate.recordClaims(selection, grants));
    }

    @Override
    public CompletionOutcome complete(OutboxClaim claim, Completion completion) {
        return timed("complete", () -> delegate.complete(claim, completion));
    }

    @Override
    public List<CompletionOutcome> completeAll(List<ClaimCompletion> completions) {
        return timed("complete", () -> delegate.completeAll(completions));
    }

    @Override
    public List<CompletionOutcome> completeAllFenced(List<ClaimCompletion> completions) {
        return timed("complete", () -> delegate.completeAllFenced(completions));
    }

    @Override
    public List<OutboxClaim> extendClaims(List<OutboxClaim> claims, Instant expiresAt) {
        return timed("extend", () -> delegate.extendClaims(claims, expiresAt));
    }

    @Override
    public long highestFenceHighWater() {
        return delegate.highestFenceHighWater();
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
