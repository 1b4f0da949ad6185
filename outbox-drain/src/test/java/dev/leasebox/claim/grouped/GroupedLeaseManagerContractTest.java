package dev.leasebox.claim.grouped;

import dev.leasebox.claim.LeaseGrouping;
import dev.leasebox.lease.ForwardingLeaseManager;
import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseLoss;
import dev.leasebox.lease.LeaseLossListener;
import dev.leasebox.lease.LeaseManager;
import dev.leasebox.lease.contract.LeaseManagerContract;
import dev.leasebox.lease.inmemory.InMemoryLeaseManager;
import dev.leasebox.testkit.MutableClock;

import java.time.Clock;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The lease contract through the grouping, each "node" a {@link GroupedLeaseManager} over its own view
 * of one in-memory coordinator, on the kit's clock. The kit's own keys are not rows and pass through;
 * both fuzzes contend for row keys, two of one group and one of the next, so concurrent managers race
 * for group leases and every row grant is checked for exclusion and growing fences.
 */
class GroupedLeaseManagerContractTest extends LeaseManagerContract {

    private final MutableClock clock = MutableClock.startingAt2026();
    private final InMemoryLeaseManager coordinator = new InMemoryLeaseManager(clock);

    /** One node's client of the shared coordinator: its own listeners, told of the renewals it finds refused. */
    private static final class View extends ForwardingLeaseManager {
        private final List<LeaseLossListener> listeners = new CopyOnWriteArrayList<>();

        View(LeaseManager coordinator) {
            super(coordinator);
        }

        @Override
        public List<Lease> renew(Collection<Lease> leases) {
            List<Lease> held = super.renew(leases);
            List<Lease> lost = leases.stream().filter(lease -> held.stream().noneMatch(lease::sameGrant)).toList();
            if (!lost.isEmpty()) {
                LeaseLoss loss = new LeaseLoss(lost, LeaseLoss.Cause.RENEWAL_REFUSED, "in-memory coordinator: renewal refused");
                listeners.forEach(l -> l.leasesLost(loss));
            }
            return held;
        }

        @Override
        public void addLeaseLossListener(LeaseLossListener listener) {
            listeners.add(listener);
        }

        @Override
        public void close() {
            // the coordinator is shared
        }
    }

    @Override
    protected LeaseManager newManager() {
        return GroupedLeaseManager.builder(new View(coordinator), new LeaseGrouping(4, 8, Duration.ZERO))
                .clock(clock).reapInterval(Duration.ZERO).open();
    }

    /** Rows 4k and 4k+1 share group k mod 8, row 4k+4 is in the next group. */
    @Override
    protected List<String> fuzzKeys() {
        long first = 4L * ThreadLocalRandom.current().nextLong(1, 1_000_000);
        return List.of("row-" + first, "row-" + (first + 1), "row-" + (first + 4));
    }

    @Override
    protected void advanceTime(Duration duration) {
        clock.advance(duration);
    }

    @Override
    protected Clock coordinatorClock() {
        return clock;
    }
}
