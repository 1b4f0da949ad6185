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
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
    private volatile WritePause pause = WritePause.NONE;

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

    /** Tests only: where a takeover or renewal stops before its writes are sent. */
    void pauseWrites(WritePause value) {
        this.pause = value;
    }

    /** The last round: every key by itself, so no key can spoil another's grant. */
    private static final int LAST_ROUND = 3;

    /**
     * Round one: a multi creating the first {@code maxGrants} keys' EPHEMERAL nodes (a single create2
     * for a lone key), and right behind it on the same connection a read multi of every key's node,
     * those not created included. All of it goes out in one flush: one round trip. When the create
     * multi commits, the read returns the czxid of each new node. When it fails because some key
     * exists, the read already shows every key's state: round two creates free keys with a multi
     * again and takes over expired ones (version-checked delete, then create; see {@code takeOver}), all pipelined, as many
     * as the limit still allows and in request order, so a key held by another is replaced by one of
     * the keys asked for beyond the limit. Only if round two loses a race again does round three go
     * key by key. Uncontended batches cost one round trip, contended ones two.
     */
    List<Lease> acquire(ZooKeeper zooKeeper, LeaseRequest request) {
        Instant sentAt = clock.instant();
        long session = zooKeeper.getSessionId();
        byte[] data = new LeaseNodeData(request.owner(), sentAt.plus(request.ttl()), request.ttl()).encode();
        List<String> keys = request.keys();
        int limit = request.maxGrants();
        return round(new Attempt(zooKeeper, request, data, sentAt, session), 1, limit, keys.subList(0, limit), List.of(),
                keys.subList(limit, keys.size()));
    }

    /** What every round of one acquire shares. */
    private record Attempt(ZooKeeper zooKeeper, LeaseRequest request, byte[] data, Instant sentAt, long session) {
    }

    /** A key whose node's deadline has passed: delete it at this version, then create it again. */
    private record Takeover(String key, int version) {
    }

    /** A key that a round may try next: free (create it) or expired (take it over). */
    private record Candidate(String key, Optional<Takeover> takeover) {
    }

    /**
     * One round: creates {@code free}, takes over {@code takeovers}, and (before the last round) reads
     * the state of those keys and of {@code spare}, the keys it may try next; at most {@code budget}
     * grants in all.
     */
    private List<Lease> round(Attempt attempt, int round, int budget, List<String> free, List<Takeover> takeovers,
                              List<String> spare) {
        if (!takeovers.isEmpty()) {
            pause.beforeTakeover();
        }
        PipelinedCalls calls = new PipelinedCalls(attempt.zooKeeper());
        List<List<String>> chunks = new ArrayList<>();
        List<CompletableFuture<Reply>> writes = new ArrayList<>();
        List<CompletableFuture<Reply>> reads = new ArrayList<>();
        int chunkSize = round == LAST_ROUND ? 1 : Fences.MAX_PER_MULTI;
        for (int from = 0; from < free.size(); from += chunkSize) {
            List<String> chunk = free.subList(from, Math.min(free.size(), from + chunkSize));
            List<Op> creates = new ArrayList<>(chunk.size());
            for (String key : chunk) {
                creates.add(Op.create(paths.of(key), attempt.data(), acl, CreateMode.EPHEMERAL));
            }
            chunks.add(chunk);
            // A lone key goes as create2, whose reply carries the Stat: cheaper than a multi of one.
            writes.add(chunk.size() == 1 ? calls.createEphemeral(paths.of(chunk.get(0)), attempt.data(), acl) : calls.multi(creates));
            reads.add(round == LAST_ROUND ? CompletableFuture.completedFuture(null) : readAll(calls, chunk));
        }
        List<CompletableFuture<Reply>> takeoverCreates = new ArrayList<>();
        for (Takeover takeover : takeovers) {
            takeoverCreates.add(takeOver(calls, takeover, attempt.data()));
        }
        List<List<String>> spareChunks = new ArrayList<>();
        List<CompletableFuture<Reply>> spareReads = new ArrayList<>();
        if (round < LAST_ROUND) {
            for (int from = 0; from < spare.size(); from += Fences.MAX_PER_MULTI) {
                List<String> chunk = spare.subList(from, Math.min(spare.size(), from + Fences.MAX_PER_MULTI));
                spareChunks.add(chunk);
                spareReads.add(readAll(calls, chunk));
            }
        }
        String what = "acquire of " + attempt.request().keys().size() + " keys (round " + round + ")";
        calls.awaitAll(timeout, what, where);

        List<Lease> granted = new ArrayList<>();
        List<Candidate> next = new ArrayList<>();
        for (int c = 0; c < chunks.size(); c++) {
            List<String> chunk = chunks.get(c);
            Reply write = writes.get(c).join();
            failOnConnectionLoss(write.code(), what);
            if (write.ok() && write.stat().isPresent()) {
                granted.add(grant(attempt, chunk.get(0), write.stat().get(), 0));
                continue;
            }
            if (write.ok() || write.code() == KeeperException.Code.NODEEXISTS) {
                Reply read = reads.get(c).join();
                if (read != null) {
                    failOnConnectionLoss(read.code(), what + " (read-back)");
                    if (write.ok()) {
                        grantOwned(attempt, chunk, read.results(), granted);
                    } else {
                        sortByState(attempt, chunk, read.results(), next);
                    }
                }
                continue;
            }
            throw new LeaseManagerException(what + " was refused by ZooKeeper at " + where + " with " + write.code()
                    + "; check that " + paths.root() + " exists and the digest ACL (leasebox.zookeeper.digest) matches");
        }
        for (int i = 0; i < takeovers.size(); i++) {
            Reply create = takeoverCreates.get(i).join();
            failOnConnectionLoss(create.code(), what);
            if (create.ok() && create.stat().isPresent()) {
                granted.add(grant(attempt, takeovers.get(i).key(), create.stat().get(), 0));
            }
        }
        for (int c = 0; c < spareChunks.size(); c++) {
            Reply read = spareReads.get(c).join();
            failOnConnectionLoss(read.code(), what + " (read of the spare keys)");
            sortByState(attempt, spareChunks.get(c), read.results(), next);
        }
        int left = budget - granted.size();
        if (round < LAST_ROUND && left > 0 && !next.isEmpty()) {
            Map<String, Integer> order = new HashMap<>();
            List<String> keys = attempt.request().keys();
            for (int i = 0; i < keys.size(); i++) {
                order.put(keys.get(i), i);
            }
            next.sort(Comparator.comparingInt(candidate -> order.get(candidate.key())));
            List<Candidate> now = next.subList(0, Math.min(left, next.size()));
            List<String> nextFree = now.stream().filter(n -> n.takeover().isEmpty()).map(Candidate::key).toList();
            List<Takeover> nextTakeovers = now.stream().flatMap(n -> n.takeover().stream()).toList();
            List<String> nextSpare = next.subList(now.size(), next.size()).stream().map(Candidate::key).toList();
            granted.addAll(round(attempt, round + 1, left, nextFree, nextTakeovers, nextSpare));
        }
        return granted;
    }

    /**
     * Takes over an expired node: deletes it at the version read, then creates the key's node again.
     * A delete is checked by version only, and a new node starts at version 0, so two managers that
     * read the same expired node at version 0 would both delete "it": the second would delete the
     * first one's new node, a live lease, and create its own, two holders of one key at once (fences
     * still refuse the older one's writes in the outbox, but the lease itself would be broken). So a
     * node taken over at version 0 is replaced in one transaction that also sets its data once: the new
     * node starts at version 1, and any other taker's delete at version 0 fails (the whole multi with
     * it). A node taken over at a later version {@code v} is replaced by a node at version 0, which its
     * holder's renewals bring to {@code v} only after {@code v} renewals, far past any concurrent
     * taker's round: the delete and create are pipelined as single calls. Either way the reply carries
     * the new node's Stat when it was created (the create2's, or the multi's setData result's).
     */
    private CompletableFuture<Reply> takeOver(PipelinedCalls calls, Takeover takeover, byte[] data) {
        String path = paths.of(takeover.key());
        if (takeover.version() == 0) {
            return calls.multi(List.of(Op.delete(path, 0), Op.create(path, data, acl, CreateMode.EPHEMERAL),
                    Op.setData(path, data, 0))).thenApply(reply -> new Reply(reply.code(), reply.results().stream()
                    .filter(OpResult.SetDataResult.class::isInstance).map(r -> ((OpResult.SetDataResult) r).getStat())
                    .findFirst(), reply.results()));
        }
        calls.delete(path, takeover.version());
        return calls.createEphemeral(path, data, acl);
    }

    /** One read multi of the keys' nodes (reads need no transaction: a multi of reads is answered in order). */
    private CompletableFuture<Reply> readAll(PipelinedCalls calls, List<String> keys) {
        List<Op> readOps = new ArrayList<>(keys.size());
        for (String key : keys) {
            readOps.add(Op.getData(paths.of(key)));
        }
        return calls.multi(readOps);
    }

    /** After a committed create multi: grants every node of the chunk this session now owns, at its position. */
    private void grantOwned(Attempt attempt, List<String> chunk, List<OpResult> state, List<Lease> granted) {
        for (int i = 0; i < chunk.size(); i++) {
            if (state.get(i) instanceof OpResult.GetDataResult result && result.getStat().getEphemeralOwner() == attempt.session()) {
                granted.add(grant(attempt, chunk.get(i), result.getStat(), i));
            }
        }
    }

    /** Sorts keys by their read state into free (create), expired (take over) and held (skip). */
    private void sortByState(Attempt attempt, List<String> chunk, List<OpResult> state, List<Candidate> next) {
        for (int i = 0; i < chunk.size(); i++) {
            OpResult current = state.get(i);
            if (current instanceof OpResult.ErrorResult error && error.getErr() == KeeperException.Code.NONODE.intValue()) {
                next.add(new Candidate(chunk.get(i), Optional.empty()));
            } else if (current instanceof OpResult.GetDataResult result
                    && LeaseNodeData.decode(result.getData()).map(d -> d.deadlinePassed(attempt.sentAt())).orElse(false)) {
                next.add(new Candidate(chunk.get(i), Optional.of(new Takeover(chunk.get(i), result.getStat().getVersion()))));
            }
        }
    }

    private Lease grant(Attempt attempt, String key, Stat stat, int position) {
        Lease lease = attempt.request().grant(key, Fences.of(stat.getCzxid(), position), attempt.sentAt());
        held.put(lease, stat.getVersion(), attempt.session());
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
            pause.beforeRenewal();
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
