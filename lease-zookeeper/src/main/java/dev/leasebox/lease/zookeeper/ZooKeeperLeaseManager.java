package dev.leasebox.lease.zookeeper;

import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseLoss;
import dev.leasebox.lease.LeaseLossListener;
import dev.leasebox.lease.LeaseManager;
import dev.leasebox.lease.LeaseManagerException;
import dev.leasebox.lease.LeaseRequest;
import dev.leasebox.lease.PeerRank;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.api.ACLProvider;
import org.apache.curator.framework.imps.DefaultACLProvider;
import org.apache.curator.framework.recipes.nodes.GroupMember;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
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
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * Fenced, batched leases held as EPHEMERAL znodes in ZooKeeper, through Apache Curator.
 *
 * <h2>What a lease is</h2>
 * A lease on key {@code k} is the EPHEMERAL znode {@code /<namespace>/leases/<k>} (the key URL-encoded),
 * owned by this manager's ZooKeeper session. Its data holds the owner and a deadline (the granting
 * client's clock plus the ttl); {@link #renew} moves the deadline with a version-checked setData.
 *
 * <h2>The fence</h2>
 * The fence is made of the znode's {@code czxid}: the 64-bit id of the transaction that created it,
 * the leader's epoch in its high 32 bits and a counter in the low 32. A later create has a greater
 * czxid, across releases, expiries and leader changes (a new leader starts a new epoch, so czxids
 * jump up). A batch is created by one multi (up to 256 keys; larger batches are several multis sent
 * together), so its nodes share one czxid; that alone would already be a valid per-row fence, since
 * fences need only grow per key. To keep fences distinct within a batch as well, the fence is
 * {@code czxid << 8 | position of the key in its multi} (see {@code Fences}): every later grant of
 * any key has a greater czxid and so a greater fence. ZooKeeper's multi results do not carry a
 * created node's Stat (only a single create2 does, and a multi cannot mix writes with reads), so the
 * czxid is read back by a read-only multi pipelined right behind the create multi on the same
 * connection: the session's requests are applied in order, and both travel in one round trip.
 *
 * <h2>When a lease is lost</h2>
 * <ul>
 *   <li><b>Session expiry.</b> ZooKeeper deletes the node when this manager's session expires (the
 *       process died, or it was cut off for longer than the negotiated session timeout). Curator
 *       reports {@code LOST}; every lease is reported lost with {@link LeaseLoss.Cause#SESSION_EXPIRED}.</li>
 *   <li><b>Deadline passed.</b> Once a node's deadline is past, another manager may take it over even
 *       while this session lives: a version-checked delete and a new create, with a higher czxid (a node
 *       taken over at version 0 is replaced in one multi that leaves the new node at version 1, so that
 *       another manager's delete at the old version cannot remove it; docs/architecture.md §26). The
 *       holder's local deadline ({@link Lease#localDeadline()}) comes a safety margin earlier; a renewal
 *       after it is not sent and is reported with {@link LeaseLoss.Cause#DEADLINE_PASSED}.</li>
 *   <li><b>Renewal refused.</b> A renewal whose node is gone or whose czxid is not the fence is
 *       reported with {@link LeaseLoss.Cause#RENEWAL_REFUSED}.</li>
 * </ul>
 * A stale renew or release (a lease this manager no longer holds with that exact fence, or one past
 * its local deadline) sends nothing and changes nothing. Versions restart at 0 in a new node, so a
 * version check alone cannot tell two nodes of one key apart; this manager therefore only writes
 * nodes it holds with that fence, before their local deadline. Residual risk: a request delayed
 * between being sent and being applied by more than the safety margin could hit a newer node at the
 * same version. The store's claim-token checks still refuse any stale final write.
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
 */
public final class ZooKeeperLeaseManager implements LeaseManager {

    private static final Logger log = LoggerFactory.getLogger(ZooKeeperLeaseManager.class);

    private final ZooKeeperLeaseConfig config;
    private final CuratorFramework curator;
    private final GroupMember membership;
    private final HeldLeases held = new HeldLeases();
    private final LeaseBatches batches;
    private final List<LeaseLossListener> listeners = new CopyOnWriteArrayList<>();
    private final ExecutorService connectionEvents = Executors.newSingleThreadExecutor(runnable -> {
        Thread thread = new Thread(runnable, "leasebox-zookeeper-connection");
        thread.setDaemon(true);
        return thread;
    });
    private volatile boolean closed;

    private ZooKeeperLeaseManager(ZooKeeperLeaseConfig config, CuratorFramework curator, List<ACL> acl) {
        this.config = config;
        this.curator = curator;
        LeasePaths paths = new LeasePaths(config.namespace());
        this.batches = new LeaseBatches(paths, acl, config.clock(), config.operationTimeout(), config.connectString(),
                held, this::reportLoss);
        this.membership = new GroupMember(curator, "/" + config.namespace() + "/" + LeasePaths.MEMBERS,
                config.memberId(), config.memberId().getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Connects to the ensemble (waiting at most the connection timeout), creates the leases root,
     * and joins the membership group. An unreachable ensemble fails with one line naming it.
     */
    public static ZooKeeperLeaseManager start(ZooKeeperLeaseConfig config) {
        Objects.requireNonNull(config, "config");
        List<ACL> acl = config.digest().isPresent() ? ZooDefs.Ids.CREATOR_ALL_ACL : ZooDefs.Ids.OPEN_ACL_UNSAFE;
        CuratorFrameworkFactory.Builder builder = CuratorFrameworkFactory.builder()
                .connectString(config.connectString())
                .sessionTimeoutMs((int) config.sessionTimeout().toMillis())
                .connectionTimeoutMs((int) Math.min(config.connectionTimeout().toMillis(), config.sessionTimeout().toMillis()))
                .retryPolicy(new ExponentialBackoffRetry(100, 3))
                .aclProvider(config.digest().isPresent() ? creatorOnly() : new DefaultACLProvider());
        config.digest().ifPresent(digest -> builder.authorization("digest", digest.getBytes(StandardCharsets.UTF_8)));
        CuratorFramework curator = builder.build();
        curator.start();
        try {
            if (!curator.blockUntilConnected((int) config.connectionTimeout().toMillis(), TimeUnit.MILLISECONDS)) {
                throw new LeaseManagerException("ZooKeeper ensemble at " + config.connectString() + " is not reachable within "
                        + config.connectionTimeout() + ": check leasebox.zookeeper.connectString and that the servers are running");
            }
            curator.create().creatingParentsIfNeeded().forPath(new LeasePaths(config.namespace()).root());
        } catch (KeeperException.NodeExistsException alreadyThere) {
            // created by another manager: fine
        } catch (LeaseManagerException e) {
            curator.close();
            throw e;
        } catch (InterruptedException e) {
            curator.close();
            Thread.currentThread().interrupt();
            throw new LeaseManagerException("interrupted while connecting to ZooKeeper at " + config.connectString(), e);
        } catch (Exception e) {
            curator.close();
            throw new LeaseManagerException("could not prepare /" + config.namespace() + "/leases on ZooKeeper at "
                    + config.connectString() + ": " + e + " (check leasebox.zookeeper.digest and the ACLs)", e);
        }
        ZooKeeperLeaseManager manager = new ZooKeeperLeaseManager(config, curator, acl);
        manager.warnIfSessionTimeoutDiffers();
        curator.getConnectionStateListenable().addListener((client, state) -> manager.connectionChanged(state),
                manager.connectionEvents);
        manager.membership.start();
        log.info("{} started", manager.describe());
        return manager;
    }

    private static ACLProvider creatorOnly() {
        return new ACLProvider() {
            @Override
            public List<ACL> getDefaultAcl() {
                return ZooDefs.Ids.CREATOR_ALL_ACL;
            }

            @Override
            public List<ACL> getAclForPath(String path) {
                return ZooDefs.Ids.CREATOR_ALL_ACL;
            }
        };
    }

    private void warnIfSessionTimeoutDiffers() {
        int negotiated = zooKeeper().getSessionTimeout();
        if (negotiated != config.sessionTimeout().toMillis()) {
            log.warn("ZooKeeper at {} negotiated a session timeout of {} ms instead of the requested {} ms "
                            + "(leasebox.zookeeper.sessionTimeout; servers clamp it to [2, 20] x tickTime): "
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
        listeners.add(Objects.requireNonNull(listener, "listener"));
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
        // Closing the session deletes every lease node this manager holds, at once.
        curator.close();
        held.removeAll();
        connectionEvents.shutdownNow();
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

    private void connectionChanged(ConnectionState state) {
        if (closed) {
            return;
        }
        switch (state) {
            case SUSPENDED:
                String suspended = "connection to ZooKeeper at " + config.connectString() + " suspended; " + held.size()
                        + " leases at risk until reconnected (or lost when the session expires)";
                log.warn(suspended);
                listeners.forEach(listener -> notify(() -> listener.connectionSuspended(suspended)));
                break;
            case LOST:
                List<Lease> lost = held.removeAll();
                log.warn("ZooKeeper session at {} lost; {} leases lost", config.connectString(), lost.size());
                if (!lost.isEmpty()) {
                    reportLoss(new LeaseLoss(lost, LeaseLoss.Cause.SESSION_EXPIRED, "ZooKeeper session at "
                            + config.connectString() + " expired or was lost: its ephemeral lease nodes are gone or going"));
                }
                break;
            case RECONNECTED:
                reconnected();
                break;
            default:
                break;
        }
    }

    private void reconnected() {
        try {
            SessionCheck.Outcome outcome = new SessionCheck(new LeasePaths(config.namespace()), config.operationTimeout(),
                    config.connectString()).verify(zooKeeper(), held);
            outcome.losses().forEach(this::reportLoss);
            String restored = "reconnected to ZooKeeper at " + config.connectString() + "; " + outcome.kept()
                    + " leases verified still held";
            log.info(restored);
            listeners.forEach(listener -> notify(() -> listener.connectionRestored(restored)));
        } catch (LeaseManagerException e) {
            log.warn("could not verify leases after reconnecting to ZooKeeper at {}: {}; they stay at risk",
                    config.connectString(), e.getMessage());
        }
    }

    private void reportLoss(LeaseLoss loss) {
        log.warn("{} leases lost ({}): {}", loss.leases().size(), loss.cause(), loss.detail());
        listeners.forEach(listener -> notify(() -> listener.leasesLost(loss)));
    }

    private static void notify(Runnable callback) {
        try {
            callback.run();
        } catch (RuntimeException e) {
            log.error("a LeaseLossListener threw; continuing with the next", e);
        }
    }
}
