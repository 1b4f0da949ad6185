package dev.leasebox.lease.zookeeper;

import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseLoss;
import dev.leasebox.lease.LeaseManagerException;
import dev.leasebox.lease.zookeeper.HeldLeases.Held;
import dev.leasebox.lease.zookeeper.PipelinedCalls.Reply;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * After a reconnection, which held leases are still ours: one read multi over every held node, kept
 * only where the czxid is still the fence and the ephemeral owner is the current session.
 */
final class SessionCheck {

    /** How many leases were kept, and the losses to report (by cause). */
    record Outcome(int kept, List<LeaseLoss> losses) {
    }

    private final LeasePaths paths;
    private final Duration timeout;
    private final String where;

    SessionCheck(LeasePaths paths, Duration timeout, String where) {
        this.paths = paths;
        this.timeout = timeout;
        this.where = where;
    }

    Outcome verify(ZooKeeper zooKeeper, HeldLeases held) {
        List<Held> entries = held.snapshot();
        if (entries.isEmpty()) {
            return new Outcome(0, List.of());
        }
        long session = zooKeeper.getSessionId();
        PipelinedCalls calls = new PipelinedCalls(zooKeeper);
        CompletableFuture<Reply> read = calls.multi(entries.stream().map(e -> Op.getData(paths.of(e.lease().key()))).toList());
        calls.awaitAll(timeout, "verifying " + entries.size() + " leases after reconnecting", where);
        Reply reply = read.join();
        if (PipelinedCalls.isConnectionFailure(reply.code())) {
            throw new LeaseManagerException("verifying leases after reconnecting failed: ZooKeeper at " + where + " answered " + reply.code());
        }
        List<Lease> expired = new ArrayList<>();
        List<Lease> gone = new ArrayList<>();
        int kept = 0;
        for (int i = 0; i < entries.size(); i++) {
            Held entry = entries.get(i);
            OpResult result = reply.results().get(i);
            Stat stat = result instanceof OpResult.GetDataResult data ? data.getStat() : null;
            if (stat != null && stat.getCzxid() == Fences.czxidOf(entry.lease().fence()) && stat.getEphemeralOwner() == session) {
                kept++;
                continue;
            }
            held.remove(entry);
            (entry.sessionId() != session ? expired : gone).add(entry.lease());
        }
        List<LeaseLoss> losses = new ArrayList<>();
        if (!expired.isEmpty()) {
            losses.add(new LeaseLoss(expired, LeaseLoss.Cause.SESSION_EXPIRED,
                    "ZooKeeper at " + where + ": reconnected with a new session; the old session's lease nodes are gone"));
        }
        if (!gone.isEmpty()) {
            losses.add(new LeaseLoss(gone, LeaseLoss.Cause.CONNECTION_LOST,
                    "ZooKeeper at " + where + ": after reconnecting, these lease nodes were gone or held by another grant"));
        }
        return new Outcome(kept, losses);
    }
}
