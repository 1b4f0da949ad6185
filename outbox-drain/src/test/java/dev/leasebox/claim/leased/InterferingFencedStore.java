package dev.leasebox.claim.leased;

import dev.leasebox.outbox.FencedOutboxStore;
import dev.leasebox.outbox.CandidateQuery;
import dev.leasebox.outbox.ClaimGrant;
import dev.leasebox.outbox.ClaimRecording;
import dev.leasebox.outbox.ClaimCompletion;
import dev.leasebox.outbox.ClaimSelection;
import dev.leasebox.outbox.Completion;
import dev.leasebox.outbox.CompletionOutcome;
import dev.leasebox.outbox.OutboxClaim;
import dev.leasebox.outbox.OutboxEntry;
import dev.leasebox.outbox.OutboxMessage;

import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A fenced store that lets a test act as a concurrent writer between candidate search and claim
 * recording (or, on the lean path, the post-grant read), the window in which a leased claim can find
 * its row no longer eligible.
 */
final class InterferingFencedStore implements FencedOutboxStore {

    private final FencedOutboxStore delegate;
    private final AtomicReference<Runnable> beforeNextRecording = new AtomicReference<>();
    private final AtomicReference<Runnable> beforeNextEligibilityCheck = new AtomicReference<>();

    InterferingFencedStore(FencedOutboxStore delegate) {
        this.delegate = delegate;
    }

    /** Runs {@code writer} once, just before the next {@link #recordClaims}. */
    void beforeNextRecording(Runnable writer) {
        beforeNextRecording.set(writer);
    }

    @Override
    public List<Long> findClaimCandidateIds(CandidateQuery query) {
        return delegate.findClaimCandidateIds(query);
    }

    @Override
    public List<OutboxEntry> findEligible(ClaimSelection selection, Collection<Long> ids) {
        Runnable writer = beforeNextEligibilityCheck.getAndSet(null);
        if (writer != null) {
            writer.run();
        }
        return delegate.findEligible(selection, ids);
    }

    /** Runs {@code writer} once, just before the next {@link #findEligible} (the lean path's post-grant read). */
    void beforeNextEligibilityCheck(Runnable writer) {
        beforeNextEligibilityCheck.set(writer);
    }

    @Override
    public ClaimRecording recordClaims(ClaimSelection selection, List<ClaimGrant> grants) {
        Runnable writer = beforeNextRecording.getAndSet(null);
        if (writer != null) {
            writer.run();
        }
        return delegate.recordClaims(selection, grants);
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
    public List<CompletionOutcome> completeAllFenced(List<ClaimCompletion> completions) {
        return delegate.completeAllFenced(completions);
    }

    @Override
    public List<OutboxClaim> extendClaims(List<OutboxClaim> claims, Instant expiresAt) {
        return delegate.extendClaims(claims, expiresAt);
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
