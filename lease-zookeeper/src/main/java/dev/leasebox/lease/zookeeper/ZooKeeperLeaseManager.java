package dev.leasebox.lease.zookeeper;

import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseLoss;
import dev.leasebox.lease.LeaseLossListener;
import dev.leasebox.lease.LeaseManager;
import dev.leasebox.lease.spi.GroupRowsByDefault;
import dev.leasebox.lease.spi.LeaseLossListeners;
import dev.leasebox.lease.LeaseManagerException;
import dev.leasebox.lease.LeaseRequest;
import dev.leasebox.lease.PeerRank;
import dev.leasebox.lease.PeerRanking;
import dev.leasebox.lease.WakeUpChannel;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.nodes.GroupMember;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Fenced, batched leases held as EPHEMERAL znodes in ZooKeeper, through Apache Curator.
 *
 * <h2>What a lease is</h2>
 * A lease on key {@code k} is the EPHEMERAL znode {@code /<namespace>/leases/<k>} (the key URL-encoded),
 * owned by this manager's ZooKeeper session, together with its <em>incarnation node</em>
 * {@code /<namespace>/incarnations/<token>}, also EPHEMERAL in that session. The token is drawn
 * afresh (122 random bits) for every lease node created; the lease node's data holds the owner, the
 * token, and a deadline: the holder's wall clock ({@link ZooKeeperLeaseConfig#clock()}) when it sent
 * the grant or renewal, plus the ttl. A lease node and its incarnation node are created in one
 * transaction and deleted in one transaction (a takeover, a release, or the end of their session), so
 * the incarnation node exists exactly as long as that one lease node: it names the node, where the
 * data version cannot (versions restart at 0 in every new node of a key).
 *
 * <h2>The fence</h2>
 * The fence is made of the lease znode's {@code czxid}: the 64-bit id of the transaction that created
 * it, the leader's epoch in its high 32 bits and a counter in the low 32. A later create has a greater
 * czxid, across releases, expiries and leader changes (a new leader starts a new epoch, so czxids
 * jump up). A batch is created by one multi (up to 256 keys; larger batches are several multis sent
 * together), so its nodes share one czxid; to keep fences distinct within a batch as well, the fence
 * is {@code czxid << 8 | position of the key in its multi} (see {@code Fences}): every later grant
 * of any key has a greater czxid and so a greater fence. ZooKeeper's multi results do not carry a
 * created node's Stat, so the czxid is read back by a read-only multi pipelined right behind the
 * write multi on the same connection: the session's requests are applied in order, and both travel
 * in one round trip.
 *
 * <h2>Every write names the node it is meant for</h2>
 * <ul>
 *   <li><b>Takeover</b> of a node read expired is one multi: delete the incarnation node read, delete
 *       the lease node at the data version read, create the new lease node and its incarnation node.
 *       It commits only if the very node read still stands, unrenewed since the read: a taker held up
 *       for any time between its read and its write can never delete a node created after its read,
 *       however many times that node was renewed, nor a node its holder renewed meanwhile.</li>
 *   <li><b>Renewal</b> is one multi: check that the lease's incarnation node exists, setData at the
 *       version this manager last wrote. It never writes a node this manager did not create with that
 *       grant. The Stat it returns must still carry the fence's czxid and this session. Renewals and
 *       releases of one key run one at a time in this manager, so its own concurrent renewals (the drain
 *       renews from its renewal thread and its claim loops) never race each other's version check.</li>
 *   <li><b>Release</b> is one multi: delete the incarnation node and the lease node at the version
 *       held.</li>
 * </ul>
 * Only leases this manager holds with that exact fence, before their local deadline, are written at
 * all; a stale renew or release sends nothing and changes nothing.
 *
 * <h2>When a lease is lost</h2>
 * <ul>
 *   <li><b>Session expiry.</b> ZooKeeper deletes the nodes when this manager's session expires (the
 *       process died, or it was cut off for longer than the negotiated session timeout). Curator
 *       reports {@code LOST}; every lease is reported lost with {@link LeaseLoss.Cause#SESSION_EXPIRED}.</li>
 *   <li><b>Deadline passed.</b> Another manager may take a node over, even while this session lives,
 *       once <em>its</em> wall clock is past the deadline written in the node by more than
 *       {@link ZooKeeperLeaseConfig#maxClockSkew()} (the takeover rule). The holder's local deadline
 *       ({@link Lease#localDeadline()}) is the send time of its grant or renewal plus the ttl minus the
 *       request's safety margin, measured on a monotonic clock ({@link ZooKeeperLeaseConfig#localClock()},
 *       {@link System#nanoTime()} by default) so that wall-clock steps neither stretch nor shorten it; a
 *       renewal after it is not sent and is reported with {@link LeaseLoss.Cause#DEADLINE_PASSED}.</li>
 *   <li><b>Renewal refused.</b> A renewal whose node is gone or was taken over is reported with
 *       {@link LeaseLoss.Cause#RENEWAL_REFUSED}. A refused write is read back first: a node that still
 *       stands with the fence's czxid, this session as its owner and the grant's incarnation token is
 *       still this grant's (an earlier write of this manager whose reply timed out moved its version),
 *       and the write is sent once more at the version read; only a node gone, taken over, or refused
 *       again is reported.</li>
 * </ul>
 *
 * <h2>The skew bound</h2>
 * The takeover rule assumes that every manager's wall clock stays within {@code maxClockSkew / 2}
 * of true time (default {@code maxClockSkew} 1 s, so ±500 ms; NTP-disciplined hosts are well
 * inside it). More precisely, for any two managers A, B and real instants s ≤ t, B's clock at t minus
 * A's at s is at most (t − s) + {@code maxClockSkew}. Then a taker acts only after real time
 * s + ttl, where s is when the holder sent its last write, while the holder stopped acting at
 * s + ttl − safety margin by its monotonic clock; the margin absorbs the monotonic clock's rate
 * error and the holder's own delays. A clock outside the bound can let a taker in early: fences and
 * the outbox store's claim checks still refuse the superseded holder's final writes.
 *
 * <p>Residual risks: two incarnation tokens colliding (random, 122 bits); an operator deleting a
 * lease or incarnation node by hand on a live system, which breaks their pairing. Nodes written in
 * an older data format (without a token) are never taken over; they go with their session.
 *
 * <h2>Connection loss, suspension, expiry</h2>
 * On {@code SUSPENDED} (connection dropped, session maybe alive) listeners are told
 * {@link LeaseLossListener#connectionSuspended}: start nothing new under these leases. On {@code LOST}
 * every lease is reported lost. On {@code RECONNECTED} each held node is read again and kept only if
 * its czxid is still the fence and its ephemeral owner is the current session; the rest are reported
 * lost, then {@link LeaseLossListener#connectionRestored}. Calls made while not connected throw
 * {@link LeaseManagerException} at once.
 *
 * <h2>Operations</h2>
 * Never wipe a ZooKeeper data directory under a running system: zxids would restart low, so new
 * fences would be below those already recorded. The outbox store's {@code fence_high_water} check
 * still refuses such stale claims (safety holds), but claims of those rows stop making progress
 * until zxids catch up. Workers register in {@code /<namespace>/members} (Curator {@link GroupMember}).
 *
 * <h2>Wake-ups</h2>
 * As a {@link WakeUpChannel}: a hint is written as the data of {@code /<namespace>/wake-ups/<topic>} and
 * subscribers watch that node ({@link ZooKeeperWakeUps}); each publish is one ZooKeeper write.
 */
public final class ZooKeeperLeaseManager implements LeaseManager, PeerRanking, GroupRowsByDefault, WakeUpChannel {

    private static final Logger log = LoggerFactory.getLogger(ZooKeeperLeaseManager.class);

    private final ZooKeeperLeaseConfig config;
    private final CuratorFramework curator;
    private final GroupMember membership;
    private final HeldLeases held = new HeldLeases();
    private final LeaseLossListeners listeners;
    private final LeaseBatches batches;
    private final ConnectionWatch connection;
    private final List<ACL> acl;
    private volatile boolean closed;

    /** Whether {@link #close()} closes {@link #curator}: false for a client the caller handed in. */
    private final boolean ownsClient;

    private ZooKeeperLeaseManager(ZooKeeperLeaseConfig config, CuratorFramework curator, List<ACL> acl, boolean ownsClient) {
        this.config = config;
        this.curator = curator;
        this.ownsClient = ownsClient;
        this.acl = acl;
        LeasePaths paths = new LeasePaths(config.namespace());
        this.listeners = LeaseLossListeners.onCallingThread("ZooKeeper lease manager at " + config.connectString()
                + ", namespace " + config.namespace(), log);
        this.batches = new LeaseBatches(paths, acl, config.clock(), config.localClock(), config.maxClockSkew(),
                config.operationTimeout(), config.connectString(), held, this::reportLoss);
        this.connection = new ConnectionWatch(config, held, listeners, this::zooKeeper, () -> closed);
        this.membership = new GroupMember(curator, "/" + config.namespace() + "/" + LeasePaths.MEMBERS,
                config.memberId(), config.memberId().getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Connects to the ensemble (waiting at most the connection timeout), creates the leases root,
     * and joins the membership group. An unreachable ensemble fails with one line naming it.
     */
    public static ZooKeeperLeaseManager start(ZooKeeperLeaseConfig config) {
        Objects.requireNonNull(config, "config");
        List<ACL> acl = CuratorSetup.acl(config);
        return started(config, CuratorSetup.startClient(config), acl, true);
    }

    /**
     * A manager on a Curator client the caller already runs (started, on the ensemble of
     * {@code config.connectString()}, which then only names it in messages); {@link #close()} releases this
     * manager's leases and leaves the group but leaves the client open. The client's session timeout is the
     * one that counts (the config's is only compared with it, with a warning when they differ); its ACL
     * provider and authorization are the caller's to set.
     */
    public static ZooKeeperLeaseManager using(CuratorFramework client, ZooKeeperLeaseConfig config) {
        Objects.requireNonNull(client, "client");
        Objects.requireNonNull(config, "config");
        if (client.getState() != org.apache.curator.framework.imps.CuratorFrameworkState.STARTED) {
            throw new IllegalArgumentException("the Curator client for " + config.connectString()
                    + " is " + client.getState() + ": start it before handing it to the lease manager");
        }
        return started(config, client, CuratorSetup.acl(config), false);
    }

    private static ZooKeeperLeaseManager started(ZooKeeperLeaseConfig config, CuratorFramework curator, List<ACL> acl,
                                                 boolean ownsClient) {
        CuratorSetup.prepare(curator, config, ownsClient);
        ZooKeeperLeaseManager manager = new ZooKeeperLeaseManager(config, curator, acl, ownsClient);
        manager.warnIfSessionTimeoutDiffers();
        manager.connection.watch(curator);
        manager.membership.start();
        log.info("{} started", manager.describe());
        return manager;
    }

    private void warnIfSessionTimeoutDiffers() {
        int negotiated = zooKeeper().getSessionTimeout();
        if (negotiated != config.sessionTimeout().toMillis()) {
            log.warn("ZooKeeper at {} negotiated a session timeout of {} ms instead of the requested {} ms "
                            + "(leasebox.zookeeper.session-timeout; servers clamp it to [2, 20] x tickTime): "
                            + "a dead holder's leases become grantable after {} ms",
                    config.connectString(), negotiated, config.sessionTimeout().toMillis(), negotiated);
        }
    }

    @Override
    public List<Lease> acquire(LeaseRequest request) {
        Objects.requireNonNull(request, "request");
        if (request.keys().isEmpty()) {
            return List.of();
        }
        return batches.acquire(connectedZooKeeper("acquire"), request);
    }

    @Override
    public List<Lease> renew(Collection<Lease> leases) {
        if (leases.isEmpty()) {
            return List.of();
        }
        return batches.renew(connectedZooKeeper("renew"), leases);
    }

    @Override
    public List<Lease> release(Collection<Lease> leases) {
        if (leases.isEmpty()) {
            return List.of();
        }
        return batches.release(connectedZooKeeper("release"), leases);
    }

    @Override
    public void addLeaseLossListener(LeaseLossListener listener) {
        listeners.add(listener);
    }

    /** The member ids of the managers currently connected in this namespace (including this one). */
    public Set<String> liveMembers() {
        return membership.getCurrentMembers().keySet();
    }

    /**
     * This manager's rank in the sorted member ids of {@code /<namespace>/members}, as the group's
     * cache shows them (no round trip). The cache follows the members' EPHEMERAL nodes: a manager that
     * closes leaves at once, one that dies leaves when its session expires. Until then its rank is
     * still counted, so another worker's candidate stripe may be left to the oldest-rows window for
     * that long (see {@code CandidateStripe}).
     */
    @Override
    public Optional<PeerRank> peerRank() {
        if (closed) {
            return Optional.empty();
        }
        List<String> members = new ArrayList<>(membership.getCurrentMembers().keySet());
        Collections.sort(members);
        int rank = members.indexOf(config.memberId());
        return rank < 0 ? Optional.empty() : Optional.of(new PeerRank(rank, members.size()));
    }

    /** How many leases this manager currently believes it holds. */
    public int heldCount() {
        return held.size();
    }

    /** Every lease is a replicated write of two znodes (decision 0031). */
    @Override
    public String whyGroupRows() {
        return "every ZooKeeper lease is two replicated znode writes, so a lease per row costs a quorum write per row";
    }

    @Override
    public void publish(String topic, String hint) {
        connectedZooKeeper("publish a wake-up");
        ZooKeeperWakeUps.publish(curator, acl, ZooKeeperWakeUps.path(config.namespace(), topic), hint, config.connectString());
    }

    @Override
    public WakeUpChannel.Subscription subscribe(String topic, WakeUpChannel.Listener listener) {
        if (closed) {
            throw new IllegalStateException(describe() + " is closed");
        }
        return ZooKeeperWakeUps.subscribe(curator, ZooKeeperWakeUps.path(config.namespace(), topic), listener);
    }

    /** Logs {@code loss} and tells the listeners, on the calling thread. */
    private void reportLoss(LeaseLoss loss) {
        log.warn("{} leases lost ({}): {}", loss.leases().size(), loss.cause(), loss.detail());
        listeners.report(loss);
    }

    @Override
    public String describe() {
        return "ZooKeeper lease manager at " + config.connectString() + " namespace /" + config.namespace()
                + " member " + config.memberId();
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        membership.close();
        if (ownsClient) {
            // Closing the session deletes every lease node this manager holds, at once.
            curator.close();
        } else {
            // The session is the caller's and outlives this manager: delete this manager's nodes one batch.
            List<Lease> leases = held.snapshot().stream().map(HeldLeases.Held::lease).toList();
            if (!leases.isEmpty() && curator.getZookeeperClient().isConnected()) {
                try {
                    batches.release(zooKeeper(), leases);
                } catch (RuntimeException e) {
                    log.warn("Could not release {} leases on close of {}; they end with the caller's session", leases.size(),
                            describe(), e);
                }
            }
        }
        held.removeAll();
        connection.shutdown();
    }

    /** The Curator client, for tests in this package (session id and password, killing the session). */
    CuratorFramework curator() {
        return curator;
    }

    /** Tests only: where this manager's takeovers and renewals stop before their writes are sent. */
    void pauseWrites(WritePause pause) {
        batches.pauseWrites(pause);
    }

    private ZooKeeper connectedZooKeeper(String operation) {
        if (closed) {
            throw new IllegalStateException(describe() + " is closed");
        }
        if (!curator.getZookeeperClient().isConnected()) {
            throw new LeaseManagerException(operation + " refused: not connected to ZooKeeper at " + config.connectString()
                    + " (connection suspended or lost); retry once reconnected");
        }
        return zooKeeper();
    }

    private ZooKeeper zooKeeper() {
        try {
            return curator.getZookeeperClient().getZooKeeper();
        } catch (Exception e) {
            throw new LeaseManagerException("no ZooKeeper handle for " + config.connectString() + ": " + e, e);
        }
    }
}
