package dev.leasebox.lease.zookeeper;

import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseManagerException;
import dev.leasebox.lease.LeaseRequest;
import dev.leasebox.lease.zookeeper.PipelinedCalls.Reply;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

import static dev.leasebox.lease.zookeeper.PipelinedCalls.failOnConnectionLoss;

/**
 * The batched acquire of {@link LeaseBatches}: up to three rounds of pipelined multis that create
 * free keys' nodes and take over expired ones, each round read back on the same connection.
 */
final class LeaseAcquisition {

    private static final byte[] NO_DATA = new byte[0];

    /** The last round: every key by itself, so no key can spoil another's grant. */
    private static final int LAST_ROUND = 3;

    private final LeasePaths paths;
    private final List<ACL> acl;
    private final Clock wallClock;
    private final Clock localClock;
    private final Duration maxClockSkew;
    private final Duration timeout;
    private final String where;
    private final HeldLeases held;
    private final Supplier<WritePause> pause;

    LeaseAcquisition(LeasePaths paths, List<ACL> acl, Clock wallClock, Clock localClock, Duration maxClockSkew, Duration timeout,
                     String where, HeldLeases held, Supplier<WritePause> pause) {
        this.paths = paths;
        this.acl = acl;
        this.wallClock = wallClock;
        this.localClock = localClock;
        this.maxClockSkew = maxClockSkew;
        this.timeout = timeout;
        this.where = where;
        this.held = held;
        this.pause = pause;
    }

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
            pause.get().beforeTakeover();
        }
        Round calls = new Round(attempt, round);
        calls.create(free);
        calls.takeOver(takeovers);
        if (round < LAST_ROUND) {
            calls.readSpare(spare);
        }
        calls.awaitAll();
        List<Lease> granted = new ArrayList<>();
        List<Candidate> next = new ArrayList<>();
        calls.collect(granted, next);
        int left = budget - granted.size();
        if (round < LAST_ROUND && left > 0 && !next.isEmpty()) {
            granted.addAll(nextRound(attempt, round + 1, left, next));
        }
        return granted;
    }

    /**
     * Round {@code round} over the candidates a round found, in request order: the first {@code left}
     * are created or taken over, the rest read as its spare keys.
     */
    private List<Lease> nextRound(Attempt attempt, int round, int left, List<Candidate> next) {
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
        return round(attempt, round, left, nextFree, nextTakeovers, nextSpare);
    }

    /**
     * The calls of one round, submitted back to back on one connection and awaited together (one
     * round trip), and what their replies grant: create multis of the free keys, in chunks, each with
     * its read-back; takeover multis, one per key, each with its read-back; reads of the spare keys.
     */
    private final class Round {

        private final Attempt attempt;
        private final int number;
        private final String what;
        private final PipelinedCalls calls;
        /** The incarnation token drawn for each key this round creates or takes over. */
        private final Map<String, String> tokens = new HashMap<>();
        private final List<List<String>> chunks = new ArrayList<>();
        private final List<CompletableFuture<Reply>> writes = new ArrayList<>();
        private final List<CompletableFuture<Reply>> reads = new ArrayList<>();
        private final List<String> takenOver = new ArrayList<>();
        private final List<CompletableFuture<Reply>> takeoverWrites = new ArrayList<>();
        private final List<CompletableFuture<Reply>> takeoverReads = new ArrayList<>();
        private final List<List<String>> spareChunks = new ArrayList<>();
        private final List<CompletableFuture<Reply>> spareReads = new ArrayList<>();

        Round(Attempt attempt, int number) {
            this.attempt = attempt;
            this.number = number;
            this.what = "acquire of " + attempt.request().keys().size() + " keys (round " + number + ")";
            this.calls = new PipelinedCalls(attempt.zooKeeper());
        }

        void create(List<String> free) {
            int chunkSize = number == LAST_ROUND ? 1 : Fences.MAX_PER_MULTI;
            for (int from = 0; from < free.size(); from += chunkSize) {
                List<String> chunk = free.subList(from, Math.min(free.size(), from + chunkSize));
                List<Op> creates = new ArrayList<>(2 * chunk.size());
                for (String key : chunk) {
                    String token = LeasePaths.newToken();
                    tokens.put(key, token);
                    creates.addAll(LeaseAcquisition.this.create(attempt, key, token));
                }
                chunks.add(chunk);
                writes.add(calls.multi(creates));
                reads.add(readAll(calls, chunk));
            }
        }

        void takeOver(List<Takeover> takeovers) {
            for (Takeover takeover : takeovers) {
                String token = LeasePaths.newToken();
                tokens.put(takeover.key(), token);
                takenOver.add(takeover.key());
                takeoverWrites.add(calls.multi(LeaseAcquisition.this.takeOver(attempt, takeover, token)));
                takeoverReads.add(readAll(calls, List.of(takeover.key())));
            }
        }

        void readSpare(List<String> spare) {
            for (int from = 0; from < spare.size(); from += Fences.MAX_PER_MULTI) {
                List<String> chunk = spare.subList(from, Math.min(spare.size(), from + Fences.MAX_PER_MULTI));
                spareChunks.add(chunk);
                spareReads.add(readAll(calls, chunk));
            }
        }

        void awaitAll() {
            calls.awaitAll(timeout, what, where);
        }

        /** Adds what the replies grant to {@code granted}, and the keys a next round may try to {@code next}. */
        void collect(List<Lease> granted, List<Candidate> next) {
            for (int c = 0; c < chunks.size(); c++) {
                List<String> chunk = chunks.get(c);
                Reply write = writes.get(c).join();
                failOnConnectionLoss(write.code(), what, where);
                if (write.ok() || write.code() == KeeperException.Code.NODEEXISTS) {
                    Reply read = reads.get(c).join();
                    failOnConnectionLoss(read.code(), what + " (read-back)", where);
                    if (write.ok()) {
                        grantOwned(attempt, chunk, read.results(), tokens, granted);
                    } else if (number < LAST_ROUND) {
                        sortByState(attempt, chunk, read.results(), next);
                    }
                    continue;
                }
                throw new LeaseManagerException(what + " was refused by ZooKeeper at " + where + " with " + write.code()
                        + "; check that " + paths.root() + " and " + paths.incarnationsRoot()
                        + " exist and the digest ACL (leasebox.zookeeper.digest) matches");
            }
            for (int i = 0; i < takenOver.size(); i++) {
                Reply write = takeoverWrites.get(i).join();
                failOnConnectionLoss(write.code(), what, where);
                Reply read = takeoverReads.get(i).join();
                failOnConnectionLoss(read.code(), what + " (read-back)", where);
                if (write.ok()) {
                    grantOwned(attempt, List.of(takenOver.get(i)), read.results(), tokens, granted);
                }
            }
            for (int c = 0; c < spareChunks.size(); c++) {
                Reply read = spareReads.get(c).join();
                failOnConnectionLoss(read.code(), what + " (read of the spare keys)", where);
                sortByState(attempt, spareChunks.get(c), read.results(), next);
            }
        }
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
}
