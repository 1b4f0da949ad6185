package dev.leasebox.lease.zookeeper;

import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseLoss;
import dev.leasebox.lease.zookeeper.HeldLeases.Held;
import dev.leasebox.lease.zookeeper.LeaseNodeWrites.NodeStat;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Renewals and releases of held lease nodes, and what they change in this manager's bookkeeping
 * ({@link HeldLeases}) and report to its listeners.
 */
final class HeldLeaseWrites {

    private final Clock wallClock;
    private final Clock localClock;
    private final String where;
    private final HeldLeases held;
    private final Consumer<LeaseLoss> lossReporter;
    private final Supplier<WritePause> pause;

    HeldLeaseWrites(Clock wallClock, Clock localClock, String where, HeldLeases held, Consumer<LeaseLoss> lossReporter,
                    Supplier<WritePause> pause) {
        this.wallClock = wallClock;
        this.localClock = localClock;
        this.where = where;
        this.held = held;
        this.lossReporter = lossReporter;
        this.pause = pause;
    }

    /**
     * Moves each held node's deadline with a version-checked write whose stat must still carry the
     * lease's fence and session. Leases not held by this manager with that fence, or past their local
     * deadline (monotonic clock), are not sent and are reported lost.
     */
    List<Lease> renew(LeaseNodeWrites writes, Collection<Lease> leases) {
        Instant now = localClock.instant();
        Instant wallNow = wallClock.instant();
        List<Held> sendable = new ArrayList<>();
        List<Lease> refused = new ArrayList<>();
        List<Lease> overdue = new ArrayList<>();
        for (Lease lease : leases) {
            Optional<Held> entry = held.find(lease);
            if (entry.isEmpty()) {
                refused.add(lease);
            } else if (!entry.get().lease().isLocallyValid(now)) {
                held.remove(entry.get());
                overdue.add(lease);
            } else {
                sendable.add(entry.get());
            }
        }
        List<Lease> renewed = new ArrayList<>();
        if (!sendable.isEmpty()) {
            pause.get().beforeRenewal();
            List<Optional<NodeStat>> replies = writes.renew(sendable, wallNow);
            for (int i = 0; i < sendable.size(); i++) {
                Held entry = sendable.get(i);
                Optional<NodeStat> stat = replies.get(i);
                if (stat.isPresent() && stat.get().czxid() == Fences.czxidOf(entry.lease().fence())
                        && stat.get().ephemeralOwner() == entry.sessionId()) {
                    Lease lease = entry.lease().renewed(now);
                    held.replace(entry, new Held(lease, stat.get().version(), entry.sessionId(), entry.token()));
                    renewed.add(lease);
                } else {
                    held.remove(entry);
                    refused.add(entry.lease());
                }
            }
        }
        report(refused, LeaseLoss.Cause.RENEWAL_REFUSED, "the lease node was gone, changed, or not held by this manager with that fence");
        report(overdue, LeaseLoss.Cause.DEADLINE_PASSED, "the local deadline passed before the renewal was sent");
        return renewed;
    }

    /**
     * Deletes each node still held with that fence and before its local deadline, with its
     * incarnation node: the delete of the incarnation node fails unless it is still this grant's node.
     */
    List<Lease> release(LeaseNodeWrites writes, Collection<Lease> leases) {
        Instant now = localClock.instant();
        List<Held> sendable = new ArrayList<>();
        for (Lease lease : leases) {
            Optional<Held> entry = held.find(lease);
            if (entry.isPresent() && entry.get().lease().isLocallyValid(now)) {
                sendable.add(entry.get());
            } else {
                // Past the local deadline the node may have been taken over: nothing to release.
                entry.ifPresent(held::remove);
            }
        }
        if (sendable.isEmpty()) {
            return List.of();
        }
        List<Boolean> deleted = writes.release(sendable);
        List<Lease> released = new ArrayList<>();
        for (int i = 0; i < sendable.size(); i++) {
            held.remove(sendable.get(i));
            if (deleted.get(i)) {
                released.add(sendable.get(i).lease());
            }
        }
        return released;
    }

    private void report(List<Lease> lost, LeaseLoss.Cause cause, String why) {
        if (!lost.isEmpty()) {
            lossReporter.accept(new LeaseLoss(lost, cause, "ZooKeeper at " + where + ": " + why));
        }
    }
}
