package dev.leasebox.metrics;

import dev.leasebox.jdbc.OutboxTableStatus;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

import java.time.Clock;
import java.time.Duration;

/**
 * The two gauges people alert on, read from the outbox table at each scrape: {@code leasebox.backlog}
 * (entries a worker could act on now) and {@code leasebox.oldest.pending.age.seconds}. A failed query
 * reads NaN. The gauges hold their table reader strongly: Micrometer keeps a gauge's object weakly unless
 * told otherwise, and nothing else holds it, so a garbage collection would otherwise turn both into NaN.
 */
public final class BacklogGauges {

    private BacklogGauges() {
    }

    /** Registers both gauges on {@code registry}, judging "now" by {@code clock}. */
    public static void register(MeterRegistry registry, OutboxTableStatus table, Clock clock) {
        Gauge.builder("leasebox.backlog", table, t -> {
                    try {
                        return t.outstanding(clock.instant());
                    } catch (Exception e) {
                        return Double.NaN;
                    }
                }).strongReference(true)
                .description("Entries a worker could act on now: pending, retrying or deferred and due, or under a live claim (NaN: the query failed)")
                .register(registry);
        Gauge.builder("leasebox.oldest.pending.age.seconds", table, t -> {
                    try {
                        return t.oldestPendingCreatedAt().map(at -> Duration.between(at, clock.instant()).toMillis() / 1000.0)
                                .orElse(0.0);
                    } catch (Exception e) {
                        return Double.NaN;
                    }
                }).strongReference(true)
                .description("Age of the oldest entry still waiting for delivery, 0 when none (NaN: the query failed)")
                .register(registry);
    }
}
