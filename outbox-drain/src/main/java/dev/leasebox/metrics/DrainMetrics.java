package dev.leasebox.metrics;

import dev.leasebox.drain.DrainListener;
import dev.leasebox.outbox.Completion;
import dev.leasebox.outbox.CompletionOutcome;
import dev.leasebox.provider.Envelope;
import dev.leasebox.provider.ProviderOutcome;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The drain's Micrometer meters: emissions by outcome ({@code leasebox.emissions}), emit latency
 * ({@code leasebox.emit.latency}), stale completions refused ({@code leasebox.completions.refused}),
 * claims claimed/lost/abandoned/released/taken over ({@code leasebox.claims}), dead letters. Also keeps plain
 * totals for progress lines.
 */
public final class DrainMetrics implements DrainListener {

    private final MeterRegistry registry;
    private final Timer emitLatency;
    private final Counter claimed;
    private final Counter refused;
    private final Counter lost;
    private final Counter abandoned;
    private final Counter released;
    private final Counter takenOver;
    private final Counter deadLettered;
    private final Counter emittedDelivered;
    private final Counter emittedDeferred;
    private final Counter emittedRetryable;
    private final Counter emittedPermanent;
    private final Map<String, Counter> refusedByReason = new ConcurrentHashMap<>();
    private final AtomicLong deliveredTotal = new AtomicLong();
    private final AtomicLong emittedTotal = new AtomicLong();
    private final AtomicLong failedTotal = new AtomicLong();
    private final AtomicLong deadLetteredTotal = new AtomicLong();
    private final AtomicLong refusedTotal = new AtomicLong();
    private final AtomicLong takenOverTotal = new AtomicLong();

    public DrainMetrics(MeterRegistry registry) {
        this.registry = registry;
        this.emitLatency = Timer.builder("leasebox.emit.latency").description("Time the provider took per emission")
                .publishPercentiles(0.5, 0.99).register(registry);
        this.claimed = claims(registry, "claimed");
        this.lost = claims(registry, "lost");
        this.abandoned = claims(registry, "abandoned");
        this.released = claims(registry, "released");
        this.takenOver = claims(registry, "taken_over");
        this.refused = Counter.builder("leasebox.completions.refused")
                .description("Completions the store refused: stale token, reclaimed or terminal row").register(registry);
        this.emittedDelivered = emissions(registry, "delivered");
        this.emittedDeferred = emissions(registry, "deferred");
        this.emittedRetryable = emissions(registry, "retryable_error");
        this.emittedPermanent = emissions(registry, "permanent_error");
        this.deadLettered = Counter.builder("leasebox.dead.letters")
                .description("Entries dead-lettered: attempts exhausted or a permanent provider error").register(registry);
    }

    /** Registered once: looking a meter up by name and tags for every emission costs more than the emission's own work. */
    private static Counter emissions(MeterRegistry registry, String outcome) {
        return Counter.builder("leasebox.emissions").tag("outcome", outcome)
                .description("Provider calls by outcome: delivered, deferred, retryable_error, permanent_error")
                .register(registry);
    }

    private static Counter claims(MeterRegistry registry, String event) {
        return Counter.builder("leasebox.claims").tag("event", event)
                .description("Entries by claim event: claimed; lost (lease gone); abandoned (left to expire); released "
                        + "unemitted; taken_over (claimed while an earlier claim on it had expired unfinished)")
                .register(registry);
    }

    @Override
    public void batchClaimed(int count) {
        claimed.increment(count);
    }

    @Override
    public void emitted(Envelope envelope, ProviderOutcome outcome, Duration latency) {
        emitLatency.record(latency);
        emittedTotal.incrementAndGet();
        if (outcome instanceof ProviderOutcome.RetryableError || outcome instanceof ProviderOutcome.PermanentError) {
            failedTotal.incrementAndGet();
        }
        emissionCounter(outcome).increment();
    }

    private Counter emissionCounter(ProviderOutcome outcome) {
        if (outcome instanceof ProviderOutcome.Delivered) {
            return emittedDelivered;
        }
        if (outcome instanceof ProviderOutcome.Deferred) {
            return emittedDeferred;
        }
        if (outcome instanceof ProviderOutcome.RetryableError) {
            return emittedRetryable;
        }
        return emittedPermanent;
    }

    @Override
    public void completed(long entryId, Completion completion, CompletionOutcome outcome) {
        if (completion instanceof Completion.Delivered) {
            deliveredTotal.incrementAndGet();
        }
    }

    @Override
    public void completionRefused(long entryId, Completion completion, CompletionOutcome refusal) {
        refused.increment();
        refusedTotal.incrementAndGet();
        refusedByReason.computeIfAbsent(refusal.getClass().getSimpleName(), reason ->
                Counter.builder("leasebox.completions.refused.by.reason").tag("reason", reason)
                        .description("Completions the store refused, by the store's reason").register(registry)).increment();
    }

    @Override
    public void claimsLost(Set<Long> entryIds, String cause) {
        lost.increment(entryIds.size());
    }

    @Override
    public void claimsTakenOver(Set<Long> entryIds) {
        takenOver.increment(entryIds.size());
        takenOverTotal.addAndGet(entryIds.size());
    }

    @Override
    public void claimsAbandoned(Set<Long> entryIds, String reason) {
        abandoned.increment(entryIds.size());
    }

    @Override
    public void claimsReleased(Set<Long> entryIds, String reason) {
        released.increment(entryIds.size());
    }

    @Override
    public void deadLettered(long entryId, String reason) {
        deadLettered.increment();
        deadLetteredTotal.incrementAndGet();
    }

    public long deliveredTotal() {
        return deliveredTotal.get();
    }

    /** Provider calls, whatever their outcome. */
    public long emittedTotal() {
        return emittedTotal.get();
    }

    /** Provider calls that failed, retryable or permanent. */
    public long failedTotal() {
        return failedTotal.get();
    }

    /** Entries dead-lettered. */
    public long deadLetteredTotal() {
        return deadLetteredTotal.get();
    }

    public long refusedTotal() {
        return refusedTotal.get();
    }

    /** Entries this worker claimed while an earlier claim on them had expired unfinished: lease losses it saw. */
    public long takenOverTotal() {
        return takenOverTotal.get();
    }
}
