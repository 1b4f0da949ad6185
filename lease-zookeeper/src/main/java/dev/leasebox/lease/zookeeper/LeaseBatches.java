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
import java.util.function.Function;

/**
 * The three batched operations on lease znodes. Each first tries one {@code multi} (one transaction,
 * one log entry for the whole batch); a multi is all-or-nothing, so when one key spoils it, the batch
 * is redone key by key as pipelined multis of that key's ops alone, which is one more round trip and
 * never fails as a whole.
 *
 * <p>Every write to an existing lease node is checked twice in its multi: the node's data version
 * (the state read or last written) and the existence of its incarnation node (which node of the key
 * it is; see {@link LeasePaths}). A version alone matches any later node of the key that reached the
 * same version; the incarnation node exists exactly as long as the one lease node created with it.
 */
final class LeaseBatches {

    private static final byte[] NO_DATA = new byte[0];

    private final LeasePaths paths;
    private final List<ACL> acl;
    private final Clock wallClock;
    private final Clock localClock;
    private final Duration maxClockSkew;
    private final Duration timeout;
    private final String where;
    private final HeldLeases held;
    private final Consumer<LeaseLoss> lossReporter;
    private volatile WritePause pause = WritePause.NONE;

    LeaseBatches(LeasePaths paths, List<ACL> acl, Clock wallClock, Clock localClock, Duration maxClockSkew, Duration timeout,
                 String where, HeldLeases held, Consumer<LeaseLoss> lossReporter) {
        this.paths = paths;
        this.acl = acl;
        this.wallClock = wallClock;
        this.localClock = localClock;
        this.maxClockSkew = maxClockSkew;
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
     * Round one: a multi creating the first {@code maxGrants} keys' EPHEMERAL nodes, each with its
     * EPHEMERAL incarnation node, and right behind it on the same connection a read multi of every
     * key's node, those not created included. All of it goes out in one flush: one round trip. When
     * the create multi commits, the read returns the czxid of each new node. When it fails because
     * some key exists, the read already shows every key's state: round two creates free keys with a
     * multi again and takes over expired ones (see {@code takeOver}), all pipelined, as many as the
     * limit still allows and in request order, so a key held by another is replaced by one of the keys
     * asked for beyond the limit. Only if round two loses a race again does round three go key by key.
     * Uncontended batches cost one round trip, contended ones two.
     */
    List<Lease> acquire(ZooKeeper zooKeeper, LeaseRequest request) {
        Instant sentAt = localClock.instant();
        Instant wallSentAt = wallClock.instant();
        long session = zooKeeper.getSessionId();
        List<String> keys = request.keys();
        int limit = request.maxGrants();
        return round(new Attempt(zooKeeper, request, sentAt, wallSentAt, session), 1, limit, keys.subList(0, limit), List.of(),
                keys.subList(limit, keys.size()));
    }

    /**
     * What every round of one acquire shares. {@code sentAt} (local, monotonic) starts the leases'
     * local deadlines; {@code wallSentAt} (wall clock) starts the deadlines written into the nodes and
     * judges whether the nodes read are expired. Both are read before anything is sent.
     */
    private record Attempt(ZooKeeper zooKeeper, LeaseRequest request, Instant sentAt, Instant wallSentAt, long session) {

        byte[] data(String token) {
            return new LeaseNodeData(request.owner(), wallSentAt.plus(request.ttl()), request.ttl(), token).encode();
        }
    }

    /** A key whose node was read expired: at this version, with this incarnation token. */
    private record Takeover(String key, int version, String token) {
    }

    /** A key that a round may try next: free (create it) or expired (take it over). */
    private record Candidate(String key, Optional<Takeover> takeover) {
    }

    /**
     * One round: creates {@code free}, takes over {@code takeovers}, and (before the last round) reads
     * the state of {@code spare}, the keys it may try next; at most {@code budget} grants in all.
     */
    private List<Lease> round(Attempt attempt, int round, int budget, List<String> free, List<Takeover> takeovers,
                              List<String> spare) {
        if (!takeovers.isEmpty()) {
            pause.beforeTakeover();
        }
        PipelinedCalls calls = new PipelinedCalls(attempt.zooKeeper());
        Map<String, String> tokens = new HashMap<>();
        List<List<String>> chunks = new ArrayList<>();
        List<CompletableFuture<Reply>> writes = new ArrayList<>();
        List<CompletableFuture<Reply>> reads = new ArrayList<>();
        int chunkSize = round == LAST_ROUND ? 1 : Fences.MAX_PER_MULTI;
        for (int from = 0; from < free.size(); from += chunkSize) {
            List<String> chunk = free.subList(from, Math.min(free.size(), from + chunkSize));
            List<Op> creates = new ArrayList<>(2 * chunk.size());
            for (String key : chunk) {
                String token = LeasePaths.newToken();
                tokens.put(key, token);
                creates.addAll(create(attempt, key, token));
            }
            chunks.add(chunk);
            writes.add(calls.multi(creates));
            reads.add(readAll(calls, chunk));
        }
        List<CompletableFuture<Reply>> takeoverWrites = new ArrayList<>();
        List<CompletableFuture<Reply>> takeoverReads = new ArrayList<>();
        for (Takeover takeover : takeovers) {
            String token = LeasePaths.newToken();
            tokens.put(takeover.key(), token);
            takeoverWrites.add(calls.multi(takeOver(attempt, takeover, token)));
            takeoverReads.add(readAll(calls, List.of(takeover.key())));
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
            if (write.ok() || write.code() == KeeperException.Code.NODEEXISTS) {
                Reply read = reads.get(c).join();
                failOnConnectionLoss(read.code(), what + " (read-back)");
                if (write.ok()) {
                    grantOwned(attempt, chunk, read.results(), tokens, granted);
                } else if (round < LAST_ROUND) {
                    sortByState(attempt, chunk, read.results(), next);
                }
                continue;
            }
            throw new LeaseManagerException(what + " was refused by ZooKeeper at " + where + " with " + write.code()
                    + "; check that " + paths.root() + " and " + paths.incarnationsRoot()
                    + " exist and the digest ACL (leasebox.zookeeper.digest) matches");
        }
        for (int i = 0; i < takeovers.size(); i++) {
            Reply write = takeoverWrites.get(i).join();
            failOnConnectionLoss(write.code(), what);
            Reply read = takeoverReads.get(i).join();
            failOnConnectionLoss(read.code(), what + " (read-back)");
            if (write.ok()) {
                grantOwned(attempt, List.of(takeovers.get(i).key()), read.results(), tokens, granted);
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

    /** A key's lease node and its incarnation node, created together. */
    private List<Op> create(Attempt attempt, String key, String token) {
        return List.of(Op.create(paths.of(key), attempt.data(token), acl, CreateMode.EPHEMERAL),
                Op.create(paths.incarnation(token), NO_DATA, acl, CreateMode.EPHEMERAL));
    }

    /**
     * Takes over a node read expired, in one multi: delete the incarnation node read (which fails
     * unless the very node read still stands), delete the lease node at the version read (which fails
     * if it was renewed since), then create the key's node and its new incarnation node. A taker that
     * read the node and was held up for any time can therefore never delete a node created after its
     * read, however many times that node was renewed, nor one its holder renewed after the read.
     */
    private List<Op> takeOver(Attempt attempt, Takeover takeover, String token) {
        List<Op> ops = new ArrayList<>(4);
        ops.add(Op.delete(paths.incarnation(takeover.token()), -1));
        ops.add(Op.delete(paths.of(takeover.key()), takeover.version()));
        ops.addAll(create(attempt, takeover.key(), token));
        return ops;
    }

    /** One read multi of the keys' nodes (reads need no transaction: a multi of reads is answered in order). */
    private CompletableFuture<Reply> readAll(PipelinedCalls calls, List<String> keys) {
        List<Op> readOps = new ArrayList<>(keys.size());
        for (String key : keys) {
            readOps.add(Op.getData(paths.of(key)));
        }
        return calls.multi(readOps);
    }

    /**
     * After a committed create or takeover multi: grants every node of the chunk that this session
     * owns with the token this round drew for it, at its position.
     */
    private void grantOwned(Attempt attempt, List<String> chunk, List<OpResult> state, Map<String, String> tokens,
                            List<Lease> granted) {
        for (int i = 0; i < chunk.size(); i++) {
            String key = chunk.get(i);
            if (state.get(i) instanceof OpResult.GetDataResult result && result.getStat().getEphemeralOwner() == attempt.session()
                    && LeaseNodeData.decode(result.getData()).map(d -> d.token().equals(tokens.get(key))).orElse(false)) {
                Lease lease = attempt.request().grant(key, Fences.of(result.getStat().getCzxid(), i), attempt.sentAt());
                held.put(lease, result.getStat().getVersion(), attempt.session(), tokens.get(key));
                granted.add(lease);
            }
        }
    }

    /**
     * Sorts keys by their read state into free (create), expired (take over) and held (skip). A node
     * is expired only when this manager's wall clock, read before the read was sent, is past the
     * deadline written in it by more than the configured maximum clock skew.
     */
    private void sortByState(Attempt attempt, List<String> chunk, List<OpResult> state, List<Candidate> next) {
        for (int i = 0; i < chunk.size(); i++) {
            OpResult current = state.get(i);
            if (current instanceof OpResult.ErrorResult error && error.getErr() == KeeperException.Code.NONODE.intValue()) {
                next.add(new Candidate(chunk.get(i), Optional.empty()));
            } else if (current instanceof OpResult.GetDataResult result) {
                Optional<LeaseNodeData> data = LeaseNodeData.decode(result.getData());
                if (data.isPresent() && data.get().expiredFor(attempt.wallSentAt(), maxClockSkew)) {
                    next.add(new Candidate(chunk.get(i),
                            Optional.of(new Takeover(chunk.get(i), result.getStat().getVersion(), data.get().token()))));
                }
            }
        }
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
        failOnConnectionLoss(reply.code(), description);
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
            failOnConnectionLoss(single.code(), description);
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

    private void failOnConnectionLoss(KeeperException.Code code, String what) {
        if (PipelinedCalls.isConnectionFailure(code)) {
            throw new LeaseManagerException(what + " failed: ZooKeeper at " + where + " answered " + code
                    + "; retry once the connection is back (leases stay held until their session expires)");
        }
    }
}
