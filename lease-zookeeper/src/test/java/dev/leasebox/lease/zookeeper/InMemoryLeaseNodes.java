package dev.leasebox.lease.zookeeper;

import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseManagerException;
import dev.leasebox.lease.zookeeper.HeldLeases.Held;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Lease nodes in memory, written as ZooKeeper writes them (a write names the node's incarnation and data
 * version, and is refused when either changed), one call at a time as one session's requests are. A call
 * can be made to take effect and then fail as a timeout does ({@link #timeOutAfterEffect}): its caller learns
 * nothing, later calls see what it did.
 */
final class InMemoryLeaseNodes implements LeaseNodeWrites {

    private record Node(long czxid, int version, long owner, String token) {
    }

    private final Map<String, Node> nodes = new HashMap<>();
    /** The numbers (from 1) of the write calls that take effect and then time out. */
    private final Set<Integer> timingOut = new HashSet<>();
    private int writeCalls;

    /**
     * A node created for {@code lease} in {@code session} with incarnation {@code token}, recorded in
     * {@code held} as the lease manager records a grant.
     */
    synchronized void grant(Lease lease, long session, String token, HeldLeases held) {
        nodes.put(lease.key(), new Node(Fences.czxidOf(lease.fence()), 0, session, token));
        held.put(lease, 0, session, token);
    }

    /** Write call number {@code call} (renewals and releases, counted from 1) takes effect, then times out. */
    synchronized InMemoryLeaseNodes timeOutAfterEffect(int call) {
        timingOut.add(call);
        return this;
    }

    /** The data version of {@code key}'s node, or empty when there is none. */
    synchronized Optional<Integer> version(String key) {
        return Optional.ofNullable(nodes.get(key)).map(Node::version);
    }

    @Override
    public synchronized List<Optional<NodeStat>> renew(List<Held> entries, Instant wallNow) {
        List<Optional<NodeStat>> replies = new ArrayList<>();
        for (Held entry : entries) {
            Node node = nodes.get(entry.lease().key());
            if (node == null || !node.token().equals(entry.token()) || node.version() != entry.version()) {
                replies.add(Optional.empty());
                continue;
            }
            Node written = new Node(node.czxid(), node.version() + 1, node.owner(), node.token());
            nodes.put(entry.lease().key(), written);
            replies.add(Optional.of(new NodeStat(written.czxid(), written.version(), written.owner())));
        }
        return afterEffect(replies);
    }

    @Override
    public synchronized List<Boolean> release(List<Held> entries) {
        List<Boolean> replies = new ArrayList<>();
        for (Held entry : entries) {
            Node node = nodes.get(entry.lease().key());
            boolean deleted = node != null && node.token().equals(entry.token()) && node.version() == entry.version();
            if (deleted) {
                nodes.remove(entry.lease().key());
            }
            replies.add(deleted);
        }
        return afterEffect(replies);
    }

    @Override
    public synchronized List<Optional<NodeRead>> read(List<Held> entries) {
        List<Optional<NodeRead>> reads = new ArrayList<>();
        for (Held entry : entries) {
            reads.add(Optional.ofNullable(nodes.get(entry.lease().key()))
                    .map(n -> new NodeRead(new NodeStat(n.czxid(), n.version(), n.owner()), Optional.of(n.token()))));
        }
        return reads;
    }

    private <T> T afterEffect(T replies) {
        if (timingOut.contains(++writeCalls)) {
            throw new LeaseManagerException("write call " + writeCalls + " got no reply within the timeout; its outcome is unknown");
        }
        return replies;
    }
}
