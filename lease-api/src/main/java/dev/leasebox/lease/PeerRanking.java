package dev.leasebox.lease;

import java.util.Optional;

/**
 * A lease manager that knows its rank among the live managers of its namespace, where the coordinator
 * keeps a membership anyway (ZooKeeper: the {@code members} group; Hazelcast: a peers map), answered
 * from state the client keeps current in the background, with no round trip. Callers find it with
 * {@link LeaseManager#as(Class)}; the claim path uses it to give each worker its own stripe of candidate
 * rows, so that concurrent workers rarely ask for the same keys. See {@link PeerRank} for what it
 * guarantees (nothing about safety).
 */
public interface PeerRanking {

    /** This manager's rank now; empty while the membership is not known. */
    Optional<PeerRank> peerRank();
}
