package dev.leasebox.drain;

import dev.leasebox.outbox.Completion;
import dev.leasebox.outbox.CompletionOutcome;
import dev.leasebox.outbox.OutboxClaim;
import dev.leasebox.provider.Envelope;
import dev.leasebox.provider.ProviderOutcome;

import java.time.Duration;
import java.util.List;
import java.util.Set;

/** Several listeners as one, called in order; see {@link DrainListener#all}. */
final class CompositeListener implements DrainListener {

    private final List<DrainListener> listeners;

    CompositeListener(List<DrainListener> listeners) {
        this.listeners = List.copyOf(listeners);
    }

    @Override
    public void batchClaimed(int count) {
        listeners.forEach(l -> l.batchClaimed(count));
    }

    @Override
    public void claimed(List<OutboxClaim> claims) {
        listeners.forEach(l -> l.claimed(claims));
    }

    @Override
    public void emitting(Envelope envelope) {
        listeners.forEach(l -> l.emitting(envelope));
    }

    @Override
    public void emitted(Envelope envelope, ProviderOutcome outcome, Duration latency) {
        listeners.forEach(l -> l.emitted(envelope, outcome, latency));
    }

    @Override
    public void completed(long entryId, Completion completion, CompletionOutcome outcome) {
        listeners.forEach(l -> l.completed(entryId, completion, outcome));
    }

    @Override
    public void completionRefused(long entryId, Completion completion, CompletionOutcome refusal) {
        listeners.forEach(l -> l.completionRefused(entryId, completion, refusal));
    }

    @Override
    public void claimsLost(Set<Long> entryIds, String cause) {
        listeners.forEach(l -> l.claimsLost(entryIds, cause));
    }

    @Override
    public void claimsTakenOver(Set<Long> entryIds) {
        listeners.forEach(l -> l.claimsTakenOver(entryIds));
    }

    @Override
    public void claimsAbandoned(Set<Long> entryIds, String reason) {
        listeners.forEach(l -> l.claimsAbandoned(entryIds, reason));
    }

    @Override
    public void claimsReleased(Set<Long> entryIds, String reason) {
        listeners.forEach(l -> l.claimsReleased(entryIds, reason));
    }

    @Override
    public void deadLettered(long entryId, String reason) {
        listeners.forEach(l -> l.deadLettered(entryId, reason));
    }

    @Override
    public void idlePoll() {
        listeners.forEach(DrainListener::idlePoll);
    }

    @Override
    public void cycleFailed(RuntimeException error) {
        listeners.forEach(l -> l.cycleFailed(error));
    }
}
