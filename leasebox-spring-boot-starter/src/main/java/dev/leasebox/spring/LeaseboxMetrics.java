package dev.leasebox.spring;

import dev.leasebox.Leasebox;
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

    /** Meters the drain's leases in the registry, whichever lease manager it leases from. */
    @Override
    public void customize(Leasebox.Builder builder) {
        builder.meterLeases(registry);
    }

    /** The drain listener that counts into the registry. */
    public DrainMetrics drainMetrics() {
        return drainMetrics;
    }
}
