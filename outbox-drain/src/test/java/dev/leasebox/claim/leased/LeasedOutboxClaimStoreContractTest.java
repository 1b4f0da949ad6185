package dev.leasebox.claim.leased;

import dev.leasebox.lease.inmemory.InMemoryLeaseManager;
import dev.leasebox.outbox.OutboxClaimStore;
import dev.leasebox.outbox.contract.OutboxClaimStoreContract;
import dev.leasebox.outbox.inmemory.InMemoryOutboxStore;
import dev.leasebox.testkit.MutableClock;

/**
 * Leases from a lease manager recorded on the rows of a fenced store pass the same claim-store
 * contract as a store with its own tokens: the coordinator and the store share the kit's clock.
 */
class LeasedOutboxClaimStoreContractTest extends OutboxClaimStoreContract {

    @Override
    protected OutboxClaimStore newStore(MutableClock clock) {
        return LeasedOutboxClaimStore.open(over(new InMemoryOutboxStore(clock)), new InMemoryLeaseManager(clock), clock);
    }
}
