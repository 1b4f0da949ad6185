package dev.leasebox.bench;

import dev.leasebox.drain.DrainListener;
import dev.leasebox.outbox.Completion;
import dev.leasebox.outbox.CompletionOutcome;
import dev.leasebox.provider.Envelope;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Counts, per entry, every emission and every DELIVERED completion the store accepted, across all
 * workers of one measurement: the evidence for "no entry was finalized twice". One ledger is shared
 * by the workers of a cell (it is their listener); it is thread-safe.
 */
final class CompletionLedger implements DrainListener {

    private final Map<Long, AtomicInteger> completions = new ConcurrentHashMap<>();
    private final Map<Long, AtomicInteger> emissions = new ConcurrentHashMap<>();
    private final AtomicLong completed = new AtomicLong();
    private final AtomicLong refused = new AtomicLong();

    @Override
    public void emitting(Envelope envelope) {
        emitted(envelope.entryId());
    }

    /** Records one emission of {@code entryId}. */
    void emitted(long entryId) {
        emissions.computeIfAbsent(entryId, id -> new AtomicInteger()).incrementAndGet();
    }

    @Override
    public void completed(long entryId, Completion completion, CompletionOutcome outcome) {
        if (completion instanceof Completion.Delivered) {
            delivered(entryId);
        }
    }

    @Override
    public void completionRefused(long entryId, Completion completion, CompletionOutcome refusal) {
        refused.incrementAndGet();
    }

    /** Records one accepted DELIVERED completion of {@code entryId}. */
    void delivered(long entryId) {
        completions.computeIfAbsent(entryId, id -> new AtomicInteger()).incrementAndGet();
        completed.incrementAndGet();
    }

    /** DELIVERED completions accepted so far, duplicates included. */
    long completedTotal() {
        return completed.get();
    }

    /** Completions the store refused (stale tokens). */
    long refusedTotal() {
        return refused.get();
    }

    /** Entries finalized more than once: must be empty, the token check forbids it. */
    List<Long> finalizedTwice() {
        return moreThanOnce(completions);
    }

    /** Entries emitted more than once: allowed only across a lease expiry, so none in a bench without faults. */
    List<Long> emittedTwice() {
        return moreThanOnce(emissions);
    }

    private static List<Long> moreThanOnce(Map<Long, AtomicInteger> counts) {
        List<Long> ids = new ArrayList<>();
        counts.forEach((id, n) -> {
            if (n.get() > 1) {
                ids.add(id);
            }
        });
        ids.sort(null);
        return ids;
    }
}
