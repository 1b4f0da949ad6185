package dev.leasebox.lease.zookeeper;

import dev.leasebox.lease.LeaseManagerException;
import dev.leasebox.lease.zookeeper.HeldLeases.Held;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The coordinator side of renewing and releasing held lease nodes, one reply per entry and in order:
 * what {@link HeldLeaseWrites} sends. Each method is one round trip (ZooKeeper: {@link ZooKeeperNodeWrites});
 * each throws {@link LeaseManagerException} when the coordinator cannot be reached or did not answer in
 * time, and then nothing is known of the outcome: a write may have taken effect all the same.
 */
interface LeaseNodeWrites {

    /** A lease node as the coordinator reports it: its czxid, data version and ephemeral owner. */
    record NodeStat(long czxid, int version, long ephemeralOwner) {
    }

    /** A lease node read back: its stat and the incarnation token its data names (empty in another format). */
    record NodeRead(NodeStat stat, Optional<String> token) {
    }

    /**
     * Per entry, checks that its incarnation node exists and writes the node's data (owner, the deadline
     * {@code wallNow + ttl}, token) at the entry's version; the node's stat after the write, or empty
     * when the write was refused (node gone, another incarnation, another version).
     */
    List<Optional<NodeStat>> renew(List<Held> entries, Instant wallNow);

    /** Per entry, deletes its incarnation node and its lease node at the entry's version; whether both went. */
    List<Boolean> release(List<Held> entries);

    /** Per entry, its key's lease node as it stands now, or empty when there is none. */
    List<Optional<NodeRead>> read(List<Held> entries);
}
