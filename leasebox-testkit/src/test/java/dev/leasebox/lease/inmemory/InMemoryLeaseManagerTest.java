package dev.leasebox.lease.inmemory;

import dev.leasebox.lease.LeaseManager;
import dev.leasebox.lease.contract.LeaseManagerContract;
import dev.leasebox.testkit.MutableClock;

import java.time.Clock;
import java.time.Duration;

/** The reference implementation passes the lease contract, on a clock the kit moves. */
class InMemoryLeaseManagerTest extends LeaseManagerContract {

    private final MutableClock clock = MutableClock.startingAt2026();
    private final InMemoryLeaseManager coordinator = new InMemoryLeaseManager(clock);

    /** Every "node" gets its own view of one coordinator, as clients of one server would. */
    @Override
    protected LeaseManager newManager() {
        return new SharedCoordinatorView(coordinator);
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
