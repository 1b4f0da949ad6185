package dev.leasebox.outbox.inmemory;

import dev.leasebox.outbox.OutboxClaimStore;
import dev.leasebox.outbox.contract.OutboxClaimStoreContract;
import dev.leasebox.testkit.MutableClock;

/** The reference store passes the claim-store contract with its own token counter. */
class InMemoryOutboxStoreTest extends OutboxClaimStoreContract {

    @Override
    protected OutboxClaimStore newStore(MutableClock clock) {
        return new InMemoryOutboxStore(clock);
    }
}
