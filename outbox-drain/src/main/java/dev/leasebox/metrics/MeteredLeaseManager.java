package dev.leasebox.metrics;

import dev.leasebox.lease.ForwardingLeaseManager;
import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseLoss;
import dev.leasebox.lease.LeaseManager;
import dev.leasebox.lease.LeaseRequest;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import java.util.Collection;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A {@link LeaseManager} that counts what its delegate does — leases granted, refused (wanted, not
 * granted) and lost ({@code leasebox.leases{event=…}}), and each call's latency
 * ({@code leasebox.lease.calls{op=…}}) — and tracks how many it holds. It adds no round trip.
 */
public final class MeteredLeaseManager extends ForwardingLeaseManager {

    private final Counter granted;
    private final Counter refused;
    private final Counter lost;
    private final Timer acquireTimer;
    private final Timer renewTimer;
    private final Timer releaseTimer;
    private final AtomicLong held = new AtomicLong();

    public MeteredLeaseManager(LeaseManager delegate, MeterRegistry registry) {
        super(delegate);
        this.granted = leases(registry, "granted");
        this.refused = leases(registry, "refused");
        this.lost = leases(registry, "lost");
        this.acquireTimer = calls(registry, "acquire").publishPercentiles(0.5, 0.99).register(registry);
        this.renewTimer = calls(registry, "renew").register(registry);
        this.releaseTimer = calls(registry, "release").register(registry);
        Gauge.builder("leasebox.leases.held", held, AtomicLong::get)
                .description("Leases this worker holds: granted and not yet released or lost").register(registry);
        delegate.addLeaseLossListener(loss -> {
            lost.increment(loss.leases().size());
            held.addAndGet(-loss.leases().size());
        });
    }

    private static Counter leases(MeterRegistry registry, String event) {
        return Counter.builder("leasebox.leases").tag("event", event)
                .description("Leases by event: granted; refused, wanted but held by another worker; lost before release")
                .register(registry);
    }

    private static Timer.Builder calls(MeterRegistry registry, String op) {
        return Timer.builder("leasebox.lease.calls").tag("op", op).description("Latency of calls to the lease backend, by operation");
    }

    /**
     * Counts a grant short of the request's limit as refusals. Keys asked for beyond the limit (a
     * claim over-asks so taken keys do not shorten its batch) are not refusals: a lone worker is
     * never refused anything.
     */
    @Override
    public List<Lease> acquire(LeaseRequest request) {
        List<Lease> leases = acquireTimer.record(() -> delegate.acquire(request));
        granted.increment(leases.size());
        refused.increment(Math.max(0, request.maxGrants() - leases.size()));
        held.addAndGet(leases.size());
        return leases;
    }

    @Override
    public List<Lease> renew(Collection<Lease> leases) {
        return renewTimer.record(() -> delegate.renew(leases));
    }

    @Override
    public List<Lease> release(Collection<Lease> leases) {
        List<Lease> released = releaseTimer.record(() -> delegate.release(leases));
        held.addAndGet(-released.size());
        return released;
    }

    /** Leases this manager granted and has not yet released or lost (may lag expiries it was not told of). */
    public long heldCount() {
        return Math.max(0, held.get());
    }

    /** For {@link LeaseLoss}-aware callers that want the unwrapped manager. */
    public LeaseManager delegate() {
        return delegate;
    }
}
