package dev.leasebox.drain;

import dev.leasebox.outbox.OutboxClaim;

import java.util.List;

import dev.leasebox.outbox.Completion;
import dev.leasebox.outbox.CompletionOutcome;
import dev.leasebox.provider.Envelope;
import dev.leasebox.provider.ProviderOutcome;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Set;

/** Shields the drain from a listener that throws: metrics must never change what the drain does. */
final class SafeListener implements DrainListener {

    private static final Logger log = LoggerFactory.getLogger(SafeListener.class);

    private final DrainListener delegate;

    SafeListener(DrainListener delegate) {
        this.delegate = delegate;
    }

    private void guard(String hook, Runnable call) {
        try {
            call.run();
        } catch (RuntimeException e) {
            log.warn("DrainListener {}.{} threw {}; ignored", delegate.getClass().getName(), hook, e.toString());
        }
    }

    @Override
    public void batchClaimed(int count) {
        guard("batchClaimed", () -> delegate.batchClaimed(count));
    }

    @Override
    public void claimed(List<OutboxClaim> claims) {
        guard("claimed", () -> delegate.claimed(claims));
    }

    @Override
    public void emitting(Envelope envelope) {
        guard("emitting", () -> delegate.emitting(envelope));
    }

    @Override
    public void emitted(Envelope envelope, ProviderOutcome outcome, Duration latency) {
        guard("emitted", () -> delegate.emitted(envelope, outcome, latency));
    }

    @Override
    public void completed(long entryId, Completion completion, CompletionOutcome outcome) {
        guard("completed", () -> delegate.completed(entryId, completion, outcome));
    }

    @Override
    public void completionRefused(long entryId, Completion completion, CompletionOutcome refusal) {
        guard("completionRefused", () -> delegate.completionRefused(entryId, completion, refusal));
    }

    @Override
    public void claimsLost(Set<Long> entryIds, String cause) {
        guard("claimsLost", () -> delegate.claimsLost(entryIds, cause));
    }

    @Override
    public void claimsTakenOver(Set<Long> entryIds) {
        guard("claimsTakenOver", () -> delegate.claimsTakenOver(entryIds));
    }

    @Override
    public void claimsAbandoned(Set<Long> entryIds, String reason) {
        guard("claimsAbandoned", () -> delegate.claimsAbandoned(entryIds, reason));
    }

    @Override
    public void claimsReleased(Set<Long> entryIds, String reason) {
        guard("claimsReleased", () -> delegate.claimsReleased(entryIds, reason));
    }

    @Override
    public void deadLettered(long entryId, String reason) {
        guard("deadLettered", () -> delegate.deadLettered(entryId, reason));
    }

    @Override
    public void idlePoll() {
        guard("idlePoll", delegate::idlePoll);
    }

    @Override
    public void cycleFailed(RuntimeException error) {
        guard("cycleFailed", () -> delegate.cycleFailed(error));
    }
}
