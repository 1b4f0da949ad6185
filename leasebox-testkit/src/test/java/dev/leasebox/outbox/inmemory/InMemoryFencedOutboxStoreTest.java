package dev.leasebox.outbox.inmemory;

import dev.leasebox.outbox.contract.FencedOutboxStoreContract;
import dev.leasebox.outbox.FencedOutboxStore;
import dev.leasebox.testkit.MutableClock;

/** The reference store passes the fenced-store contract that external lease managers rely on. */
class InMemoryFencedOutboxStoreTest extends FencedOutboxStoreContract {

    @Override
    protected FencedOutboxStore newFencedStore(MutableClock clock) {
        return new InMemoryOutboxStore(clock);
    }
}
