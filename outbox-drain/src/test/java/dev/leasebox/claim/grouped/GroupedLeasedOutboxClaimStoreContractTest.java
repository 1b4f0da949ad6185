package dev.leasebox.claim.grouped;

import dev.leasebox.claim.LeaseGrouping;
import dev.leasebox.claim.leased.LeasedOutboxClaimStore;
import dev.leasebox.lease.inmemory.InMemoryLeaseManager;
import dev.leasebox.outbox.OutboxClaimStore;
import dev.leasebox.outbox.contract.OutboxClaimStoreContract;
import dev.leasebox.outbox.inmemory.InMemoryOutboxStore;
import dev.leasebox.testkit.MutableClock;

import java.time.Duration;

/**
 * Row leases grouped four rows a lease over sixteen groups pass the claim-store contract: the kit's
 * rows share group leases, so every claim, renewal, completion and reclaim goes through the grouping.
 * No linger: the kit's clock does not move by itself, so a lingering group would never be released.
 */
class GroupedLeasedOutboxClaimStoreContractTest extends OutboxClaimStoreContract {

    @Override
    protected OutboxClaimStore newStore(MutableClock clock) {
        GroupedLeaseManager grouped = GroupedLeaseManager.builder(new InMemoryLeaseManager(clock), new LeaseGrouping(4, 16, Duration.ZERO))
                .clock(clock).reapInterval(Duration.ZERO).open();
        return LeasedOutboxClaimStore.open(over(new InMemoryOutboxStore(clock)), grouped, clock);
    }
}
