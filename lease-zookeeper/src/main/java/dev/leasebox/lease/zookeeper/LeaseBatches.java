package dev.leasebox.lease.zookeeper;

import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseLoss;
import dev.leasebox.lease.LeaseRequest;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;

import java.time.Clock;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.function.Consumer;

/**
 * The three batched operations on lease znodes. An acquire goes in rounds, which {@link LeaseAcquisition}
 * sends; renewals and releases of held nodes, and their bookkeeping, are {@link HeldLeaseWrites}', written
 * through {@link ZooKeeperNodeWrites} on the handle of the call.
 */
final class LeaseBatches {

    private final LeasePaths paths;
    private final Duration timeout;
    private final String where;
    private final LeaseAcquisition acquisition;
    private final HeldLeaseWrites heldWrites;
    private volatile WritePause pause = WritePause.NONE;

    LeaseBatches(LeasePaths paths, List<ACL> acl, Clock wallClock, Clock localClock, Duration maxClockSkew, Duration timeout,
                 String where, HeldLeases held, Consumer<LeaseLoss> lossReporter) {
        this.paths = paths;
        this.timeout = timeout;
        this.where = where;
        this.acquisition = new LeaseAcquisition(paths, acl, wallClock, localClock, maxClockSkew, timeout, where, held, () -> pause);
        this.heldWrites = new HeldLeaseWrites(wallClock, localClock, where, held, lossReporter, () -> pause,
                HeldLeaseWrites.LOCK_STRIPES);
    }

    /** Tests only: where a takeover or renewal stops before its writes are sent. */
    void pauseWrites(WritePause value) {
        this.pause = value;
    }

    /** The batched acquire: see {@link LeaseAcquisition#acquire}. */
    List<Lease> acquire(ZooKeeper zooKeeper, LeaseRequest request) {
        return acquisition.acquire(zooKeeper, request);
    }

    /** Renews held leases: see {@link HeldLeaseWrites#renew}. */
    List<Lease> renew(ZooKeeper zooKeeper, Collection<Lease> leases) {
        return heldWrites.renew(new ZooKeeperNodeWrites(zooKeeper, paths, timeout, where), leases);
    }

    /** Releases held leases: see {@link HeldLeaseWrites#release}. */
    List<Lease> release(ZooKeeper zooKeeper, Collection<Lease> leases) {
        return heldWrites.release(new ZooKeeperNodeWrites(zooKeeper, paths, timeout, where), leases);
    }
}
