package dev.leasebox.lease.zookeeper;

import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseLoss;
import dev.leasebox.lease.LeaseRequest;
import dev.leasebox.lease.zookeeper.HeldLeases.Held;
import dev.leasebox.lease.zookeeper.PipelinedCalls.Reply;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Function;

import static dev.leasebox.lease.zookeeper.PipelinedCalls.failOnConnectionLoss;

/**
 * The three batched operations on lease znodes. Each first tries one {@code multi} (one transaction,
 * one log entry for the whole batch); a multi is all-or-nothing, so when one key spoils it, the batch
 * is redone key by key as pipelined multis of that key's ops alone, which is one more round trip and
 * never fails as a whole. An acquire goes in rounds, which {@link LeaseAcquisition} sends.
 *
 * <p>Every write to an existing lease node is checked twice in its multi: the node's data version
 * (the state read or last written) and the existence of its incarnation node (which node of the key
 * it is; see {@link LeasePaths}). A version alone matches any later node of the key that reached the
 * same version; the incarnation node exists exactly as long as the one lease node created with it.
 */
final class LeaseBatches {

    private final LeasePaths paths;
    private final Clock wallClock;
    private final Clock localClock;
    private final Duration timeout;
    private final String where;
    private final HeldLeases held;
    private final Consumer<LeaseLoss> lossReporter;
    private final LeaseAcquisition acquisition;
    private volatile WritePause pause = WritePause.NONE;

    LeaseBatches(LeasePaths paths, List<ACL> acl, Clock wallClock, Clock localClock, Duration maxClockSkew, Duration timeout,
                 String where, HeldLeases held, Consumer<LeaseLoss> lossReporter) {
        this.paths = paths;
        this.wallClock = wallClock;
        this.localClock = localClock;
        this.timeout = timeout;
        this.where = where;
        this.held = held;
        this.lossReporter = lossReporter;
        this.acquisition = new LeaseAcquisition(paths, acl, wallClock, localClock, maxClockSkew, timeout, where, held, () -> pause);
    }

    /** Tests only: where a takeover or renewal stops before its writes are sent. */
    void pauseWrites(WritePause value) {
        this.pause = value;
    }

    /** The batched acquire: see {@link LeaseAcquisition#acquire}. */
    List<Lease> acquire(ZooKeeper zooKeeper, LeaseRequest request) {
        return acquisition.acquire(zooKeeper, request);
    }

    /**
     * Moves each held node's deadline, as one multi of, per lease, a check that its incarnation node
     * still exists and a version-checked setData; the setData results carry each node's Stat, whose
     * czxid must still be the lease's fence. A renewal therefore never writes a node this manager did
     * not create with that grant. Leases not held by this manager with that fence, or past their local
     * deadline (monotonic clock), are not sent and are reported lost.
     */
    List<Lease> renew(ZooKeeper zooKeeper, Collection<Lease> leases) {
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
            pause.beforeRenewal();
            List<Reply> replies = writeEach(zooKeeper, sendable, "renew", entry -> {
                Lease lease = entry.lease();
                byte[] data = new LeaseNodeData(lease.owner(), wallNow.plus(lease.ttl()), lease.ttl(), entry.token()).encode();
                return List.of(Op.check(paths.incarnation(entry.token()), -1),
                        Op.setData(paths.of(lease.key()), data, entry.version()));
            });
            for (int i = 0; i < sendable.size(); i++) {
                Held entry = sendable.get(i);
                Optional<Stat> stat = replies.get(i).stat();
                if (stat.isPresent() && stat.get().getCzxid() == Fences.czxidOf(entry.lease().fence())
                        && stat.get().getEphemeralOwner() == entry.sessionId()) {
                    Lease lease = entry.lease().renewed(now);
                    held.replace(entry, new Held(lease, stat.get().getVersion(), entry.sessionId(), entry.token()));
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
    List<Lease> release(ZooKeeper zooKeeper, Collection<Lease> leases) {
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
        List<Reply> replies = writeEach(zooKeeper, sendable, "release", entry -> List.of(
                Op.delete(paths.incarnation(entry.token()), -1), Op.delete(paths.of(entry.lease().key()), entry.version())));
        List<Lease> released = new ArrayList<>();
        for (int i = 0; i < sendable.size(); i++) {
            held.remove(sendable.get(i));
            if (replies.get(i).ok()) {
                released.add(sendable.get(i).lease());
            }
        }
        return released;
    }

    /**
     * One multi of every entry's ops; if it fails as a whole, each entry's ops once more as a multi of
     * their own, all pipelined. Returns one reply per entry, in order, carrying the Stat of the entry's
     * setData where it has one.
     */
    private List<Reply> writeEach(ZooKeeper zooKeeper, List<Held> entries, String what, Function<Held, List<Op>> write) {
        List<List<Op>> writes = entries.stream().map(write).toList();
        String description = what + " of " + entries.size() + " leases";
        PipelinedCalls batch = new PipelinedCalls(zooKeeper);
        CompletableFuture<Reply> multi = batch.multi(writes.stream().flatMap(List::stream).toList());
        batch.awaitAll(timeout, description, where);
        Reply reply = multi.join();
        failOnConnectionLoss(reply.code(), description, where);
        if (reply.ok()) {
            List<Reply> each = new ArrayList<>();
            int from = 0;
            for (List<Op> ops : writes) {
                List<OpResult> results = reply.results().subList(from, from + ops.size());
                each.add(new Reply(KeeperException.Code.OK, setDataStat(results), results));
                from += ops.size();
            }
            return each;
        }
        PipelinedCalls singles = new PipelinedCalls(zooKeeper);
        List<CompletableFuture<Reply>> pending = writes.stream().map(singles::multi).toList();
        singles.awaitAll(timeout, description + ", key by key", where);
        List<Reply> each = new ArrayList<>();
        for (CompletableFuture<Reply> future : pending) {
            Reply single = future.join();
            failOnConnectionLoss(single.code(), description, where);
            each.add(new Reply(single.code(), single.ok() ? setDataStat(single.results()) : Optional.empty(), single.results()));
        }
        return each;
    }

    private static Optional<Stat> setDataStat(List<OpResult> results) {
        return results.stream().filter(OpResult.SetDataResult.class::isInstance)
                .map(r -> ((OpResult.SetDataResult) r).getStat()).findFirst();
    }

    private void report(List<Lease> lost, LeaseLoss.Cause cause, String why) {
        if (!lost.isEmpty()) {
            lossReporter.accept(new LeaseLoss(lost, cause, "ZooKeeper at " + where + ": " + why));
        }
    }
}
