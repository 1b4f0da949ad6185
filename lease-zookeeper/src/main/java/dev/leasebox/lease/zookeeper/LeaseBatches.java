package dev.leasebox.lease.zookeeper;

import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseLoss;
import dev.leasebox.lease.LeaseManagerException;
import dev.leasebox.lease.LeaseRequest;
import dev.leasebox.lease.zookeeper.HeldLeases.Held;
import dev.leasebox.lease.zookeeper.PipelinedCalls.Reply;
import org.apache.zookeeper.CreateMode;
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

/**
 * The three batched operations on lease znodes. Each first tries one {@code multi} (one transaction,
 * one log entry for the whole batch); a multi is all-or-nothing, so when one key spoils it, the batch
 * is redone key by key as pipelined single calls, which is one more round trip and never fails as a
 * whole.
 */
final class LeaseBatches {

    private final LeasePaths paths;
    private final List<ACL> acl;
    private final Clock clock;
    private final Duration timeout;
    private final String where;
    private final HeldLeases held;
    private final Consumer<LeaseLoss> lossReporter;

    LeaseBatches(LeasePaths paths, List<ACL> acl, Clock clock, Duration timeout, String where, HeldLeases held,
                 Consumer<LeaseLoss> lossReporter) {
        this.paths = paths;
        this.acl = acl;
        this.clock = clock;
        this.timeout = timeout;
        this.where = where;
        this.held = held;
        this.lossReporter = lossReporter;
    }

    /**
     * Round one: a multi creating every key's EPHEMERAL node, and right behind it on the same
     * connection a read multi of every key's node. Both go out in one flush: one round trip. When the
     * create multi commits, the read returns the czxid (the fence) of each new node. When it fails
     * because some key exists, the read shows every key's state, and round two creates the free keys
     * and takes over the expired ones (version-checked delete, then create) as pipelined single calls,
     * whose create2 replies carry the Stat and so the fence.
     */
    List<Lease> acquire(ZooKeeper zooKeeper, LeaseRequest request) {
        Instant sentAt = clock.instant();
        long session = zooKeeper.getSessionId();
        byte[] data = new LeaseNodeData(request.owner(), sentAt.plus(request.ttl()), request.ttl()).encode();
        List<String> keys = request.keys();
        PipelinedCalls calls = new PipelinedCalls(zooKeeper);
        List<List<String>> chunks = new ArrayList<>();
        List<CompletableFuture<Reply>> writes = new ArrayList<>();
        List<CompletableFuture<Reply>> reads = new ArrayList<>();
        for (int from = 0; from < keys.size(); from += Fences.MAX_PER_MULTI) {
            List<String> chunk = keys.subList(from, Math.min(keys.size(), from + Fences.MAX_PER_MULTI));
            List<Op> creates = new ArrayList<>(chunk.size());
            List<Op> readOps = new ArrayList<>(chunk.size());
            for (String key : chunk) {
                creates.add(Op.create(paths.of(key), data, acl, CreateMode.EPHEMERAL));
                readOps.add(Op.getData(paths.of(key)));
            }
            chunks.add(chunk);
            writes.add(calls.multi(creates));
            reads.add(calls.multi(readOps));
        }
        String what = "acquire of " + keys.size() + " keys";
        calls.awaitAll(timeout, what, where);
        List<Lease> granted = new ArrayList<>();
        List<String> contended = new ArrayList<>();
        List<OpResult> contendedState = new ArrayList<>();
        for (int c = 0; c < chunks.size(); c++) {
            List<String> chunk = chunks.get(c);
            Reply write = writes.get(c).join();
            Reply read = reads.get(c).join();
            failOnConnectionLoss(write.code(), what);
            failOnConnectionLoss(read.code(), what + " (read-back)");
            if (write.ok()) {
                for (int i = 0; i < chunk.size(); i++) {
                    if (read.results().get(i) instanceof OpResult.GetDataResult result
                            && result.getStat().getEphemeralOwner() == session) {
                        granted.add(grant(request, chunk.get(i), result.getStat(), i, sentAt, session));
                    }
                }
            } else if (write.code() == KeeperException.Code.NODEEXISTS) {
                contended.addAll(chunk);
                contendedState.addAll(read.results());
            } else {
                throw new LeaseManagerException(what + " was refused by ZooKeeper at " + where + " with " + write.code()
                        + "; check that " + paths.root() + " exists and the digest ACL (leasebox.zookeeper.digest) matches");
            }
        }
        if (!contended.isEmpty()) {
            granted.addAll(acquireKeyByKey(zooKeeper, request, contended, contendedState, data, sentAt, session));
        }
        return granted;
    }

    private List<Lease> acquireKeyByKey(ZooKeeper zooKeeper, LeaseRequest request, List<String> keys, List<OpResult> state,
                                        byte[] data, Instant sentAt, long session) {
        PipelinedCalls calls = new PipelinedCalls(zooKeeper);
        List<String> attempted = new ArrayList<>();
        List<CompletableFuture<Reply>> creates = new ArrayList<>();
        for (int i = 0; i < keys.size(); i++) {
            String path = paths.of(keys.get(i));
            OpResult current = state.get(i);
            boolean free = current instanceof OpResult.ErrorResult error
                    && error.getErr() == KeeperException.Code.NONODE.intValue();
            boolean expired = current instanceof OpResult.GetDataResult result
                    && LeaseNodeData.decode(result.getData()).map(d -> d.deadlinePassed(sentAt)).orElse(false);
            if (expired) {
                calls.delete(path, ((OpResult.GetDataResult) current).getStat().getVersion());
            }
            if (free || expired) {
                attempted.add(keys.get(i));
                creates.add(calls.createEphemeral(path, data, acl));
            }
        }
        calls.awaitAll(timeout, "acquire of " + attempted.size() + " keys, key by key", where);
        List<Lease> granted = new ArrayList<>();
        for (int i = 0; i < attempted.size(); i++) {
            Reply reply = creates.get(i).join();
            failOnConnectionLoss(reply.code(), "acquire of key " + attempted.get(i));
            if (reply.ok() && reply.stat().isPresent()) {
                granted.add(grant(request, attempted.get(i), reply.stat().get(), 0, sentAt, session));
            }
        }
        return granted;
    }

    private Lease grant(LeaseRequest request, String key, Stat stat, int position, Instant sentAt, long session) {
        Lease lease = request.grant(key, Fences.of(stat.getCzxid(), position), sentAt);
        held.put(lease, stat.getVersion(), session);
        return lease;
    }

    /**
     * Version-checked setData of each held node's deadline, as one multi whose results carry each
     * node's Stat; the czxid in it must still be the lease's fence. Leases not held by this manager
     * with that fence, or past their local deadline, are not sent and are reported lost.
     */
    List<Lease> renew(ZooKeeper zooKeeper, Collection<Lease> leases) {
        Instant now = clock.instant();
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
            List<Reply> replies = writeEach(zooKeeper, sendable, "renew", entry -> {
                Lease lease = entry.lease();
                byte[] data = new LeaseNodeData(lease.owner(), now.plus(lease.ttl()), lease.ttl()).encode();
                return new PendingWrite(Op.setData(paths.of(lease.key()), data, entry.version()),
                        calls -> calls.setData(paths.of(lease.key()), data, entry.version()));
            });
            for (int i = 0; i < sendable.size(); i++) {
                Held entry = sendable.get(i);
                Optional<Stat> stat = replies.get(i).stat();
                if (stat.isPresent() && stat.get().getCzxid() == Fences.czxidOf(entry.lease().fence())
                        && stat.get().getEphemeralOwner() == entry.sessionId()) {
                    Lease lease = entry.lease().renewed(now);
                    held.replace(entry, new Held(lease, stat.get().getVersion(), entry.sessionId()));
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

    /** Version-checked delete of each node still held with that fence and before its local deadline. */
    List<Lease> release(ZooKeeper zooKeeper, Collection<Lease> leases) {
        Instant now = clock.instant();
        List<Held> sendable = new ArrayList<>();
        for (Lease lease : leases) {
            Optional<Held> entry = held.find(lease);
            if (entry.isPresent() && entry.get().lease().isLocallyValid(now)) {
                sendable.add(entry.get());
            } else {
                // Past the local deadline another owner may hold a new node at the same version: send nothing.
                entry.ifPresent(held::remove);
            }
        }
        if (sendable.isEmpty()) {
            return List.of();
        }
        List<Reply> replies = writeEach(zooKeeper, sendable, "release", entry -> {
            String path = paths.of(entry.lease().key());
            return new PendingWrite(Op.delete(path, entry.version()), calls -> calls.delete(path, entry.version()));
        });
        List<Lease> released = new ArrayList<>();
        for (int i = 0; i < sendable.size(); i++) {
            held.remove(sendable.get(i));
            if (replies.get(i).ok()) {
                released.add(sendable.get(i).lease());
            }
        }
        return released;
    }

    /** One held lease's write, both as a multi op and as a single pipelined call. */
    private record PendingWrite(Op op, java.util.function.Function<PipelinedCalls, CompletableFuture<Reply>> single) {
    }

    /**
     * One multi of all writes; if it fails as a whole, the same writes once more as pipelined single
     * calls. Returns one reply per entry, in order, carrying the Stat where the write returns one.
     */
    private List<Reply> writeEach(ZooKeeper zooKeeper, List<Held> entries, String what,
                                  java.util.function.Function<Held, PendingWrite> write) {
        List<PendingWrite> writes = entries.stream().map(write).toList();
        String description = what + " of " + entries.size() + " leases";
        PipelinedCalls batch = new PipelinedCalls(zooKeeper);
        CompletableFuture<Reply> multi = batch.multi(writes.stream().map(PendingWrite::op).toList());
        batch.awaitAll(timeout, description, where);
        Reply reply = multi.join();
        failOnConnectionLoss(reply.code(), description);
        if (reply.ok()) {
            List<Reply> each = new ArrayList<>();
            for (OpResult result : reply.results()) {
                Optional<Stat> stat = result instanceof OpResult.SetDataResult set ? Optional.of(set.getStat()) : Optional.empty();
                each.add(new Reply(KeeperException.Code.OK, stat, List.of()));
            }
            return each;
        }
        PipelinedCalls singles = new PipelinedCalls(zooKeeper);
        List<CompletableFuture<Reply>> pending = writes.stream().map(w -> w.single().apply(singles)).toList();
        singles.awaitAll(timeout, description + ", key by key", where);
        List<Reply> each = pending.stream().map(CompletableFuture::join).toList();
        for (Reply single : each) {
            failOnConnectionLoss(single.code(), description);
        }
        return each;
    }

    private void report(List<Lease> lost, LeaseLoss.Cause cause, String why) {
        if (!lost.isEmpty()) {
            lossReporter.accept(new LeaseLoss(lost, cause, "ZooKeeper at " + where + ": " + why));
        }
    }

    private void failOnConnectionLoss(KeeperException.Code code, String what) {
        if (PipelinedCalls.isConnectionFailure(code)) {
            throw new LeaseManagerException(what + " failed: ZooKeeper at " + where + " answered " + code
                    + "; retry once the connection is back (leases stay held until their session expires)");
        }
    }
}
