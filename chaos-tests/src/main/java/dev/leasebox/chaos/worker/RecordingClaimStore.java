package dev.leasebox.chaos.worker;

import dev.leasebox.outbox.ForwardingOutboxClaimStore;
import dev.leasebox.outbox.ClaimCompletion;
import dev.leasebox.outbox.ClaimRequest;
import dev.leasebox.outbox.ClaimSelection;
import dev.leasebox.outbox.CompletionOutcome;
import dev.leasebox.outbox.OutboxClaim;
import dev.leasebox.outbox.OutboxClaimStore;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Records what the store did with this worker's claims: every claim recorded on a row (with its
 * token and recorded times), every renewal asked for and kept, every completion sent and what the
 * row said. Optionally holds each completion write for {@code writeLatency} after recording its
 * invocation: a slow path to the database, the window between the drain's last deadline check and
 * its write that a GC pause or a stalled network opens, and the window the pause injector aims at.
 */
final class RecordingClaimStore extends ForwardingOutboxClaimStore {

    private final HistoryRecorder history;
    private final Clock clock;
    private final Duration writeLatency;
    private final boolean sharedLeases;

    /**
     * {@code sharedLeases}: rows are granted under leases shared by a group of rows, whose grant times
     * ({@link OutboxClaim#claimedAt()}, taken from {@code clock}, the lease manager's monotonic clock) are recorded
     * on the common clock as each claim's {@code leaseSince}.
     */
    RecordingClaimStore(OutboxClaimStore delegate, HistoryRecorder history, Clock clock, Duration writeLatency,
                        boolean sharedLeases) {
        super(delegate);
        this.history = history;
        this.clock = clock;
        this.writeLatency = writeLatency;
        this.sharedLeases = sharedLeases;
    }

    @Override
    public List<OutboxClaim> claim(ClaimSelection selection, ClaimRequest request) {
        long askedAt = history.commonMillis();
        List<OutboxClaim> claims = delegate.claim(selection, request);
        if (!sharedLeases) {
            claims.forEach(c -> history.claimRecorded(c, askedAt));
            return claims;
        }
        // both clocks advance with the JVM's monotonic clock: their difference converts a grant time to the common clock
        long commonMinusLocal = history.commonMillis() - clock.millis();
        claims.forEach(c -> history.claimRecorded(c, askedAt, c.claimedAt().toEpochMilli() + commonMinusLocal));
        return claims;
    }

    @Override
    public List<OutboxClaim> renewClaims(List<OutboxClaim> claims, Duration leaseDuration) {
        long most = clock.millis() + leaseDuration.toMillis();
        claims.forEach(c -> history.renewInvoked(c, most));
        List<OutboxClaim> kept = delegate.renewClaims(claims, leaseDuration);
        kept.forEach(history::renewed);
        return kept;
    }

    @Override
    public List<CompletionOutcome> completeAll(List<ClaimCompletion> completions) {
        completions.forEach(c -> history.completeInvoked(c.claim(), c.completion()));
        if (!writeLatency.isZero() && !completions.isEmpty()) {
            sleep(writeLatency);
        }
        List<CompletionOutcome> outcomes = delegate.completeAll(completions);
        for (int i = 0; i < completions.size() && i < outcomes.size(); i++) {
            history.completionOutcome(completions.get(i).claim(), completions.get(i).completion(), outcomes.get(i));
        }
        return outcomes;
    }

    private static void sleep(Duration d) {
        try {
            TimeUnit.NANOSECONDS.sleep(d.toNanos()); // simulated network latency, not synchronisation
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
