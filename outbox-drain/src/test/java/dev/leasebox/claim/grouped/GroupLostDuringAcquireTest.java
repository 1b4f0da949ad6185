package dev.leasebox.claim.grouped;

import dev.leasebox.claim.LeaseGrouping;
import dev.leasebox.claim.leased.LeasedOutboxClaimStore;
import dev.leasebox.lease.ForwardingLeaseManager;
import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseLoss;
import dev.leasebox.lease.LeaseLossListener;
import dev.leasebox.lease.LeaseRequest;
import dev.leasebox.lease.inmemory.InMemoryLeaseManager;
import dev.leasebox.testkit.MutableClock;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A group lease the delegate reports lost while the acquire that was granted it is still under way (a
 * session expiry between the grant and its return): the grant must grant no row and leave no group held.
 */
class GroupLostDuringAcquireTest {

    private static final Duration TTL = Duration.ofSeconds(10);

    /** A delegate whose grants are reported lost to its listeners before its acquire returns them. */
    private static final class LosingOnGrant extends ForwardingLeaseManager {
        private final List<LeaseLossListener> listeners = new ArrayList<>();

        LosingOnGrant(InMemoryLeaseManager delegate) {
            super(delegate);
        }

        @Override
        public void addLeaseLossListener(LeaseLossListener listener) {
            listeners.add(listener);
            super.addLeaseLossListener(listener);
        }

        @Override
        public List<Lease> acquire(LeaseRequest request) {
            List<Lease> granted = super.acquire(request);
            if (!granted.isEmpty()) {
                LeaseLoss loss = new LeaseLoss(granted, LeaseLoss.Cause.SESSION_EXPIRED, "expired while the grant was on its way back");
                listeners.forEach(l -> l.leasesLost(loss));
            }
            return granted;
        }
    }

    @Test
    void aGroupReportedLostBeforeItsAcquireReturnsGrantsNoRowAndIsNotKept() {
        MutableClock clock = MutableClock.startingAt2026();
        try (GroupedLeaseManager manager = GroupedLeaseManager.builder(new LosingOnGrant(new InMemoryLeaseManager(clock)),
                new LeaseGrouping(2, 4, Duration.ZERO)).clock(clock).reapInterval(Duration.ZERO).open()) {
            List<Lease> granted = manager.acquire(new LeaseRequest(List.of(LeasedOutboxClaimStore.leaseKey(2)), "worker", TTL));

            assertThat(granted).as("rows granted under a group lease already reported lost").isEmpty();
            synchronized (manager) {
                assertThat(manager.holds()).as("groups kept after their loss").isEmpty();
            }
        }
    }
}
