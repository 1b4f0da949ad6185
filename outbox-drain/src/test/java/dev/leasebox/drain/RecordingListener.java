package dev.leasebox.drain;

import dev.leasebox.outbox.Completion;
import dev.leasebox.outbox.CompletionOutcome;
import dev.leasebox.provider.Envelope;
import dev.leasebox.provider.ProviderOutcome;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/** Keeps every hook call, for assertions. */
final class RecordingListener implements DrainListener {

    record Refusal(long entryId, Completion completion, CompletionOutcome refusal) {
    }

    final List<Integer> batches = new CopyOnWriteArrayList<>();
    final List<ProviderOutcome> outcomes = new CopyOnWriteArrayList<>();
    final List<Long> completed = new CopyOnWriteArrayList<>();
    final List<Refusal> refused = new CopyOnWriteArrayList<>();
    final List<Long> lost = new CopyOnWriteArrayList<>();
    final List<String> lossCauses = new CopyOnWriteArrayList<>();
    final List<Long> abandoned = new CopyOnWriteArrayList<>();
    final List<Long> released = new CopyOnWriteArrayList<>();
    final List<String> deadLetterReasons = new CopyOnWriteArrayList<>();
    final AtomicInteger idlePolls = new AtomicInteger();

    @Override
    public void batchClaimed(int count) {
        batches.add(count);
    }

    @Override
    public void emitted(Envelope envelope, ProviderOutcome outcome, Duration latency) {
        outcomes.add(outcome);
    }

    @Override
    public void completed(long entryId, Completion completion, CompletionOutcome outcome) {
        completed.add(entryId);
    }

    @Override
    public void completionRefused(long entryId, Completion completion, CompletionOutcome refusal) {
        refused.add(new Refusal(entryId, completion, refusal));
    }

    @Override
    public void claimsLost(Set<Long> entryIds, String cause) {
        lost.addAll(entryIds);
        lossCauses.add(cause);
    }

    @Override
    public void claimsAbandoned(Set<Long> entryIds, String reason) {
        abandoned.addAll(entryIds);
    }

    @Override
    public void claimsReleased(Set<Long> entryIds, String reason) {
        released.addAll(entryIds);
    }

    @Override
    public void deadLettered(long entryId, String reason) {
        deadLetterReasons.add(reason);
    }

    @Override
    public void idlePoll() {
        idlePolls.incrementAndGet();
    }
}
