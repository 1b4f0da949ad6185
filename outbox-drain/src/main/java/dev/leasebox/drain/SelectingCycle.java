package dev.leasebox.drain;

import dev.leasebox.outbox.Completion;
import dev.leasebox.outbox.CompletionOutcome;
import dev.leasebox.outbox.OutboxEntry;
import dev.leasebox.outbox.OutboxStore;
import dev.leasebox.provider.Envelope;
import dev.leasebox.provider.ProviderOutcome;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.BooleanSupplier;

/**
 * The non-claiming compatibility path ({@code useClaimLeases = false}): select with
 * {@code findPending}/{@code findRetryReady}, emit, {@code save}. Nothing stops another worker from
 * selecting and emitting the same entry meanwhile, and {@code save} overwrites unconditionally:
 * safe only for one active worker or disjoint slices.
 */
final class SelectingCycle implements DrainCycle {

    private static final Logger log = LoggerFactory.getLogger(SelectingCycle.class);

    private final OutboxStore store;
    private final DrainOptions options;
    private final Clock clock;
    private final Emitter emitter;
    private final CompletionPolicy policy;
    private final DrainListener listener;
    private final BooleanSupplier stopRequested;

    SelectingCycle(OutboxStore store, DrainOptions options, Clock clock, Emitter emitter, CompletionPolicy policy,
                   DrainListener listener, BooleanSupplier stopRequested) {
        this.store = store;
        this.options = options;
        this.clock = clock;
        this.emitter = emitter;
        this.policy = policy;
        this.listener = listener;
        this.stopRequested = stopRequested;
    }

    @Override
    public CycleResult run() {
        if (stopRequested.getAsBoolean()) {
            return CycleResult.EMPTY;
        }
        int limit = options.batchSize();
        List<OutboxEntry> entries = new ArrayList<>(store.findPending(limit));
        if (entries.size() < limit) {
            entries.addAll(store.findRetryReady(limit - entries.size()));
        }
        if (entries.isEmpty()) {
            return CycleResult.EMPTY;
        }
        listener.batchClaimed(entries.size());
        CycleTally tally = new CycleTally(entries.size());
        for (OutboxEntry entry : entries) {
            if (stopRequested.getAsBoolean()) {
                break; // nothing is claimed, so there is nothing to hand back
            }
            ProviderOutcome outcome = emitter.emit(Envelope.forUnclaimed(entry, options.owner()));
            Completion completion = policy.completionFor(entry, outcome, clock.instant());
            try {
                OutboxEntry saved = store.save(Completion.apply(completion, entry));
                tally.written(completion);
                listener.completed(entry.id(), completion, new CompletionOutcome.Completed(saved));
                CompletionPolicy.deadLetterReason(completion).ifPresent(r -> listener.deadLettered(entry.id(), r));
            } catch (RuntimeException e) {
                log.warn("Could not save the result of entry {} ({}); it stays eligible and will be emitted again",
                        entry.id(), e.toString());
                tally.abandoned(1);
                listener.claimsAbandoned(Set.of(entry.id()), "save failed: " + e);
            }
        }
        return tally.result();
    }
}
