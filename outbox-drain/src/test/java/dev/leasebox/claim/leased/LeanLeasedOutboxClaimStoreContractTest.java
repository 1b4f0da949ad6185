package dev.leasebox.claim.leased;

import dev.leasebox.claim.ClaimMode;
import dev.leasebox.lease.inmemory.InMemoryLeaseManager;
import dev.leasebox.outbox.OutboxClaimStore;
import dev.leasebox.outbox.contract.OutboxClaimStoreContract;
import dev.leasebox.outbox.inmemory.InMemoryOutboxStore;
import dev.leasebox.testkit.MutableClock;

/** Lean claims (no claim record; the fence is checked in the completion) pass the whole claim-store contract. */
class LeanLeasedOutboxClaimStoreContractTest extends OutboxClaimStoreContract {

    @Override
    protected OutboxClaimStore newStore(MutableClock clock) {
        return LeasedOutboxClaimStore.builder(over(new InMemoryOutboxStore(clock)), new InMemoryLeaseManager(clock), clock)
                .claimMode(ClaimMode.LEAN).open();
    }

    @Override
    protected boolean claimsAreWrittenToRows() {
        return false;
    }
}
