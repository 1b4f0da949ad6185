package dev.leasebox.lease.zookeeper;

import dev.leasebox.lease.zookeeper.HeldLeases.Held;
import dev.leasebox.lease.zookeeper.PipelinedCalls.Reply;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

import static dev.leasebox.lease.zookeeper.PipelinedCalls.failOnConnectionLoss;

/**
 * {@link LeaseNodeWrites} on one ZooKeeper handle. A batch of writes first goes as one {@code multi} (one
 * transaction, one log entry); a multi is all-or-nothing, so when one key spoils it, the batch is redone key
 * by key as pipelined multis of that key's ops alone, which is one more round trip and never fails as a whole.
 *
 * <p>Every write to an existing lease node is checked twice in its multi: the node's data version (the
 * state last written) and the existence of its incarnation node (which node of the key it is; see
 * {@link LeasePaths}). A version alone matches any later node of the key that reached the same version; the
 * incarnation node exists exactly as long as the one lease node created with it.
 */
final class ZooKeeperNodeWrites implements LeaseNodeWrites {

    private final ZooKeeper zooKeeper;
    private final LeasePaths paths;
    private final Duration timeout;
    private final String where;

    ZooKeeperNodeWrites(ZooKeeper zooKeeper, LeasePaths paths, Duration timeout, String where) {
        this.zooKeeper = zooKeeper;
        this.paths = paths;
        this.timeout = timeout;
        this.where = where;
    }

    @Override
    public List<Optional<NodeStat>> renew(List<Held> entries, Instant wallNow) {
        List<Reply> replies = writeEach(entries, "renew", entry -> {
            byte[] data = new LeaseNodeData(entry.lease().owner(), wallNow.plus(entry.lease().ttl()), entry.lease().ttl(),
                    entry.token()).encode();
            return List.of(Op.check(paths.incarnation(entry.token()), -1),
                    Op.setData(paths.of(entry.lease().key()), data, entry.version()));
        });
        return replies.stream().map(reply -> reply.stat().map(ZooKeeperNodeWrites::nodeStat)).toList();
    }

    @Override
    public List<Boolean> release(List<Held> entries) {
        return writeEach(entries, "release", entry -> List.of(Op.delete(paths.incarnation(entry.token()), -1),
                Op.delete(paths.of(entry.lease().key()), entry.version()))).stream().map(Reply::ok).toList();
    }

    @Override
    public List<Optional<NodeRead>> read(List<Held> entries) {
        String description = "reading back " + entries.size() + " lease nodes whose write was refused";
        PipelinedCalls calls = new PipelinedCalls(zooKeeper);
        CompletableFuture<Reply> read = calls.multi(entries.stream().map(e -> Op.getData(paths.of(e.lease().key()))).toList());
        calls.awaitAll(timeout, description, where);
        Reply reply = read.join();
        failOnConnectionLoss(reply.code(), description, where);
        List<Optional<NodeRead>> nodes = new ArrayList<>(entries.size());
        for (int i = 0; i < entries.size(); i++) {
            OpResult result = i < reply.results().size() ? reply.results().get(i) : null;
            if (result instanceof OpResult.GetDataResult data) {
                nodes.add(Optional.of(new NodeRead(nodeStat(data.getStat()),
                        LeaseNodeData.decode(data.getData()).map(LeaseNodeData::token))));
            } else {
                nodes.add(Optional.empty());
            }
        }
        return nodes;
    }

    /**
     * One multi of every entry's ops; if it fails as a whole, each entry's ops once more as a multi of
     * their own, all pipelined. Returns one reply per entry, in order, carrying the Stat of the entry's
     * setData where it has one.
     */
    private List<Reply> writeEach(List<Held> entries, String what, Function<Held, List<Op>> write) {
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

    private static NodeStat nodeStat(Stat stat) {
        return new NodeStat(stat.getCzxid(), stat.getVersion(), stat.getEphemeralOwner());
    }
}
