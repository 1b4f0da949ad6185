package dev.leasebox.lease.zookeeper;

import dev.leasebox.lease.LeaseManagerException;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Asynchronous ZooKeeper calls submitted back to back on one connection and awaited together: the
 * client writes them in one flush and the server answers them in order, so a whole pipeline costs one
 * network round trip. ZooKeeper processes one session's requests in the order sent, so a read
 * submitted after a write sees that write.
 *
 * <p>The raw {@link ZooKeeper} handle is used on purpose: Curator's background operations may be
 * re-queued by its retry policy, which would reorder a pipeline and blindly retry a non-idempotent
 * grant.
 */
final class PipelinedCalls {

    /** The reply to one call: ZooKeeper's result code and, where the call returns them, stat and results. */
    record Reply(KeeperException.Code code, Optional<Stat> stat, List<OpResult> results) {

        boolean ok() {
            return code == KeeperException.Code.OK;
        }
    }

    private final ZooKeeper zooKeeper;
    private final List<CompletableFuture<Reply>> pending = new ArrayList<>();

    PipelinedCalls(ZooKeeper zooKeeper) {
        this.zooKeeper = zooKeeper;
    }

    CompletableFuture<Reply> multi(List<Op> ops) {
        CompletableFuture<Reply> reply = track();
        zooKeeper.multi(ops, (rc, path, ctx, results) ->
                reply.complete(new Reply(KeeperException.Code.get(rc), Optional.empty(), results == null ? List.of() : results)), null);
        return reply;
    }

    /** A create that returns the new node's Stat (ZooKeeper's create2), hence its czxid. */
    CompletableFuture<Reply> createEphemeral(String path, byte[] data, List<ACL> acl) {
        CompletableFuture<Reply> reply = track();
        zooKeeper.create(path, data, acl, CreateMode.EPHEMERAL, (rc, p, ctx, name, stat) ->
                reply.complete(new Reply(KeeperException.Code.get(rc), Optional.ofNullable(stat), List.of())), null);
        return reply;
    }

    private CompletableFuture<Reply> track() {
        CompletableFuture<Reply> reply = new CompletableFuture<>();
        pending.add(reply);
        return reply;
    }

    /** Waits for every reply submitted so far; {@code what} and {@code where} name the failure. */
    void awaitAll(Duration timeout, String what, String where) {
        try {
            CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new)).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new LeaseManagerException(what + " got no reply from ZooKeeper at " + where + " within " + timeout
                    + "; its outcome is unknown (nodes created by it expire with their deadline or this session)", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LeaseManagerException(what + " was interrupted while waiting for ZooKeeper at " + where, e);
        } catch (ExecutionException e) {
            throw new LeaseManagerException(what + " failed against ZooKeeper at " + where + ": " + e.getCause(), e.getCause());
        }
    }

    /**
     * Throws when {@code code} means the connection or session failed, so that nothing is concluded
     * about the keys of {@code what}; {@code where} names the ensemble.
     */
    static void failOnConnectionLoss(KeeperException.Code code, String what, String where) {
        if (isConnectionFailure(code)) {
            throw new LeaseManagerException(what + " failed: ZooKeeper at " + where + " answered " + code
                    + "; retry once the connection is back (leases stay held until their session expires)");
        }
    }

    /** Whether {@code code} means the connection or session failed, so nothing can be concluded about the keys. */
    static boolean isConnectionFailure(KeeperException.Code code) {
        return code == KeeperException.Code.CONNECTIONLOSS
                || code == KeeperException.Code.SESSIONEXPIRED
                || code == KeeperException.Code.SESSIONMOVED
                || code == KeeperException.Code.OPERATIONTIMEOUT
                || code == KeeperException.Code.REQUESTTIMEOUT
                || code == KeeperException.Code.NOTREADONLY
                || code == KeeperException.Code.SYSTEMERROR;
    }
}
