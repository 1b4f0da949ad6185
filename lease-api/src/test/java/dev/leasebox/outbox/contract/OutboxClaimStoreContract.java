package dev.leasebox.outbox.contract;

import dev.leasebox.outbox.OutboxClaimStore;
import dev.leasebox.testkit.MutableClock;

/**
 * The claim-store contract every {@link OutboxClaimStore} passes: extend this class and implement
 * {@link #newStore(MutableClock)}. The store must take "now" from the given clock (never from the
 * database's own clock) so that the kit can move time; each call returns a store over an empty outbox.
 */
public abstract class OutboxClaimStoreContract {

    /** A claim store over an empty outbox, whose "now" is {@code clock}. */
    protected abstract OutboxClaimStore newStore(MutableClock clock);
}
