package dev.leasebox.drain;

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
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A claim store that forwards to a real one and remembers what happened: every claim granted with
 * its latest expiry (renewals included), how many calls of each kind, and the loss listeners it was
 * given (so a test can report claims at risk the way a suspended coordinator would).
 */
final class ObservedClaimStore implements OutboxClaimStore {

    /** A claim as granted, with its expiry as last extended. */
    record Granted(long entryId, long token, String owner, Instant claimedAt, Instant expiresAt, int claimAttemptCount) {
    }

    private final OutboxClaimStore delegate;
    final Map<Long, Granted> grantedByToken;
    final List<ClaimLossListener> lossListeners = new CopyOnWriteArrayList<>();
    final AtomicInteger claimCalls = new AtomicInteger();
    final AtomicInteger completeAllCalls = new AtomicInteger();
    final AtomicInteger renewCalls = new AtomicInteger();
    /** When set, claim and completeAll throw it, as a store whose database is unreachable would. */
    final AtomicReference<RuntimeException> unreachable = new AtomicReference<>();

    ObservedClaimStore(OutboxClaimStore delegate) {
        this(delegate, new ConcurrentHashMap<>());
    }

    /** Records grants into {@code grantedByToken}, which several workers' stores may share. */
    ObservedClaimStore(OutboxClaimStore delegate, Map<Long, Granted> grantedByToken) {
        this.delegate = delegate;
        this.grantedByToken = grantedByToken;
    }

    @Override
    public List<OutboxClaim> claim(ClaimSelection selection, ClaimRequest request) {
        claimCalls.incrementAndGet();
        throwIfUnreachable();
        List<OutboxClaim> claims = delegate.claim(selection, request);
        claims.forEach(c -> grantedByToken.put(c.token(),
                new Granted(c.entryId(), c.token(), c.owner(), c.claimedAt(), c.expiresAt(), c.claimAttemptCount())));
        return claims;
    }

    @Override
    public List<OutboxClaim> renewClaims(List<OutboxClaim> claims, Duration leaseDuration) {
        renewCalls.incrementAndGet();
        List<OutboxClaim> renewed = delegate.renewClaims(claims, leaseDuration);
        renewed.forEach(c -> grantedByToken.computeIfPresent(c.token(), (token, g) -> new Granted(g.entryId(), token,
                g.owner(), g.claimedAt(), c.expiresAt(), g.claimAttemptCount())));
        return renewed;
    }

    @Override
    public List<CompletionOutcome> completeAll(List<ClaimCompletion> completions) {
        completeAllCalls.incrementAndGet();
        throwIfUnreachable();
        return delegate.completeAll(completions);
    }

    private void throwIfUnreachable() {
        RuntimeException failure = unreachable.get();
        if (failure != null) {
            throw failure;
        }
    }

    @Override
    public CompletionOutcome complete(OutboxClaim claim, Completion completion) {
        return delegate.complete(claim, completion);
    }

    @Override
    public long highestFenceHighWater() {
        return delegate.highestFenceHighWater();
    }

    @Override
    public void addClaimLossListener(ClaimLossListener listener) {
        lossListeners.add(listener);
        delegate.addClaimLossListener(listener);
    }
}
