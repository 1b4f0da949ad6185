package dev.leasebox.spring;

import dev.leasebox.lease.LeaseManager;
import dev.leasebox.metrics.DrainMetrics;
import dev.leasebox.metrics.MeteredLeaseManager;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

import java.time.Clock;
import java.time.Duration;

/**
 * Binds the drain to the application's {@link MeterRegistry}: {@link DrainMetrics} (emissions by outcome,
 * emit latency, stale completions refused, claims, dead letters), {@link MeteredLeaseManager} (leases
 * granted, refused, lost, held; lease call latency) and the backlog gauges {@code leasebox.backlog} and
 * {@code leasebox.oldest.pending.age.seconds}.
 */
public class LeaseboxMetrics implements LeaseboxCustomizer {

    private final MeterRegistry registry;
    private final DrainMetrics drainMetrics;

    public LeaseboxMetrics(MeterRegistry registry, OutboxTableReport report, Clock clock) {
        this.registry = registry;
        this.drainMetrics = new DrainMetrics(registry);
        // Micrometer holds a gauge's object weakly unless told otherwise: nothing else holds the report.
        Gauge.builder("leasebox.backlog", report, r -> {
                    try {
                        return r.backlog(clock.instant());
                    } catch (Exception e) {
                        return Double.NaN;
                    }
                }).strongReference(true)
                .description("Entries a worker could act on now: pending, retrying or deferred and due, or under a live claim (NaN: the query failed)")
                .register(registry);
        Gauge.builder("leasebox.oldest.pending.age.seconds", report, r -> {
                    try {
                        return r.oldestPendingCreatedAt().map(t -> Duration.between(t, clock.instant()).toMillis() / 1000.0)
                                .orElse(0.0);
                    } catch (Exception e) {
                        return Double.NaN;
                    }
                }).strongReference(true)
                .description("Age of the oldest entry still waiting for delivery, 0 when none (NaN: the query failed)")
                .register(registry);
    }

    @Override
    public LeaseManager decorateLeaseManager(LeaseManager manager) {
        return new MeteredLeaseManager(manager, registry);
    }

    /** The drain listener that counts into the registry. */
    public DrainMetrics drainMetrics() {
        return drainMetrics;
    }
}
