package dev.leasebox.console;

import dev.leasebox.outbox.ForwardingOutboxClaimStore;
import dev.leasebox.outbox.OutboxClaim;
import dev.leasebox.outbox.OutboxClaimStore;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A claim store whose claim renewals hang until {@link #thaw()}: a worker frozen as by a long GC pause or a
 * partition from its database, whose claims expire in the table while it still believes it holds them.
 */
final class FrozenRenewals extends ForwardingOutboxClaimStore {

    private final CountDownLatch thawed;

    FrozenRenewals(OutboxClaimStore delegate, CountDownLatch thawed) {
        super(delegate);
        this.thawed = thawed;
    }

    @Override
    public List<OutboxClaim> renewClaims(List<OutboxClaim> claims, Duration leaseDuration) {
        try {
            thawed.await(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return delegate.renewClaims(claims, leaseDuration);
    }
}
