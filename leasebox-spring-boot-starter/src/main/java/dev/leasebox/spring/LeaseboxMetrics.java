package dev.leasebox.spring;

import dev.leasebox.lease.LeaseManager;
import dev.leasebox.metrics.BacklogGauges;
import dev.leasebox.metrics.DrainMetrics;
import dev.leasebox.metrics.MeteredLeaseManager;
import io.micrometer.core.instrument.MeterRegistry;

import java.time.Clock;

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
        BacklogGauges.register(registry, report.status(), clock);
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
