package dev.leasebox.lease.hazelcast;

import dev.leasebox.lease.spi.LeaseLossListeners;
import com.hazelcast.cluster.Member;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.cp.lock.FencedLock;
import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseLoss;
import dev.leasebox.lease.LeaseLossListener;
import dev.leasebox.lease.LeaseManager;
import dev.leasebox.lease.spi.GroupRowsByDefault;
import dev.leasebox.lease.LeaseManagerException;
import dev.leasebox.lease.LeaseRequest;
import dev.leasebox.lease.PeerRank;
import dev.leasebox.lease.PeerRanking;
import dev.leasebox.lease.WakeUpChannel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Leases held as Hazelcast CP Subsystem {@link FencedLock}s, in embedded-member or client mode: a
 * lock per key. This manager knows nothing of what the keys stand for.
 *
 * <h2>The fence</h2>
 * A grant's fence is the value of {@link FencedLock#tryLockAndGetFence()}: the Raft log index at which
 * the lock was acquired in its CP group. All locks of one CP group share that log, so fences grow
 * across every key of the group, across release, expiry and crashes; they are not comparable across
 * CP groups, and they start again only if the CP Subsystem is reset (its Raft logs discarded), after
 * which the store's fence high-water mark refuses the repeated values
 * ({@link #raiseFenceFloor(long)} cannot move a Raft index and returns false).
 *
 * <h2>When a lease is lost</h2>
 * <ul>
 *   <li><b>Its ttl passes without a renewal.</b> An expiry timer on a thread of its own, which reads
 *       only local deadlines and so is never held up by a CP call, tells the listeners when it is
 *       due ({@link LeaseLoss.Cause#DEADLINE_PASSED}); the owner thread drops the lease and unlocks
 *       its lock once no other lease holds it and the cluster answers. A live but stuck caller never
 *       keeps a key past its ttl, and a lease reported lapsed is never renewed afterwards.</li>
 *   <li><b>The CP session expires.</b> Every lock of this instance is freed by the cluster when its CP
 *       session misses heartbeats for the session TTL: the JVM died, froze, or was cut off. A crashed
 *       holder's keys become grantable {@code session TTL} after its last heartbeat, whatever the
 *       requested ttl; the next renewal reports the loss ({@link LeaseLoss.Cause#SESSION_EXPIRED}).
 *       Requests whose ttl exceeds session TTL minus heartbeat are refused, since a holder cut off
 *       right after a call could otherwise trust a lease the cluster already freed.</li>
 *   <li><b>A client loses its connection.</b> Listeners hear {@code connectionSuspended}; after
 *       reconnection every held lock is checked and the lost ones are reported.</li>
 *   <li><b>The CP group loses its majority.</b> Calls fail with {@link LeaseManagerException}; leases
 *       are kept until their ttl, whose passing is reported on time although the owner threads wait
 *       on the cluster.</li>
 * </ul>
 * A loss found by any path is reported, including by a renewal that runs on its owner thread after
 * its caller stopped waiting.
 *
 * <h2>When an unlock fails</h2>
 * An unlock that fails other than by finding the lock not held (the cluster unreachable past the
 * operation timeout, a CP leader change) may not have taken effect: the lock may still be held by
 * this instance's CP session and the owner thread, which a client keeps alive by heartbeating, and
 * a {@code tryLock} on that thread would re-enter it and return the fence of the earlier grant. So:
 * <ul>
 *   <li>Such a lock, whether its unlock came from a release, a lapse or a trim, is kept as leaked
 *       ({@link LeakedLock}) and its key is not granted by this manager while it is; a release does
 *       not count its lease released.</li>
 *   <li>Its owner thread unlocks it again, backing off up to five seconds between attempts and at once
 *       when a client reconnects, until an unlock succeeds or the cluster answers that the thread
 *       holds it no more (the session ended, or the first unlock took effect late): other managers
 *       get its keys then, without waiting for the session to expire. Each failure is logged at WARN.</li>
 *   <li>A {@code tryLock} that fails after it may have taken effect (its reply lost past the invocation
 *       timeout, a heartbeat timeout, a leader change) is treated the same way: the lock is kept as
 *       leaked, possibly held, and unlocked until the cluster says this thread no longer holds it.
 *       The next grant of that lock is checked with its hold count: one above one is a re-entry and
 *       grants nothing.</li>
 *   <li>A fence is never handed out for two grants: a {@code tryLock} whose fence is not above every
 *       fence this manager was handed before it was sent did not acquire the lock anew (it re-entered
 *       one this thread still held, or the CP Subsystem was reset); it is undone and grants nothing.</li>
 * </ul>
 *
 * <h2>Threads</h2>
 * FencedLock ownership is (CP session, thread), so every lock, renewal check and unlock of a key runs
 * on one of this manager's lock-affine owner threads, never on the caller's. A key whose lock this
 * manager already holds is decided locally, with no call: it is not granted. There is no
 * asynchronous FencedLock API: acquiring keys under N locks costs N sequential Raft round trips
 * spread over the owner threads. Each owner thread keeps the lock proxies it fetched ({@link #proxiesPerThread}):
 * fetching one is a round trip of its own, answered with a linearizable read of the METADATA CP group.
 *
 * <h2>Wake-ups</h2>
 * As a {@link WakeUpChannel}: hints go out on a plain {@code ITopic} per topic, {@code <namespace>/%wake-up%<topic>}
 * (no CP session involved); a client misses the hints sent while it is disconnected and tells its
 * subscriptions so when it connects again ({@link HazelcastWakeUps}).
 *
 * <h2>Lock names and memory</h2>
 * A CP group keeps every FencedLock it ever created, locked or not, until it is destroyed: leasing a
 * lock per row of an outbox would grow a member's heap with every row ever delivered (measured in a
 * two-minute bench: 653,354 lock objects on three members, snapshot copies included, with their
 * metrics, 1,065 MB of live heap). Callers that lease an unbounded set of keys therefore bound them
 * first: the drain groups its rows under a bounded set of group keys on this backend by default
 * ({@code dev.leasebox.claim.grouped.GroupedLeaseManager}: 4,096 groups of 128 rows), and
 * {@link #releaseAndDestroy(Collection)} frees the lock of a key that will never be leased again; a
 * destroyed name can never be locked again, and a later attempt is simply not granted.
 */
public final class HazelcastLeaseManager implements LeaseManager, PeerRanking, GroupRowsByDefault, WakeUpChannel {

    private static final Logger LOG = LoggerFactory.getLogger(HazelcastLeaseManager.class);
    /** After {@code <namespace>/}: the IMap of live managers, for {@link #peerRank()}. */
    static final String PEERS_MAP = "%peers";

    private final HazelcastInstance instance;
    private final boolean ownsInstance;
    private final HazelcastLeaseConfig config;
    private final CpSessionTiming timing;
    private final String description;
    private final OwnerThreads owners;
    private final HazelcastPeers peers;
    private final LockNames names;
    private final LeaseLossListeners listeners;
    private final LeaseDeadlines deadlines;
    private final LockRelease release;
    private final LockAcquisition acquisition;
    private final LockRenewal renewal;
    private final ClientReconnection reconnection;
    private volatile UUID lifecycleRegistration;
    private volatile boolean closed;

    private HazelcastLeaseManager(HazelcastInstance instance, boolean ownsInstance, HazelcastLeaseConfig config) {
        this.instance = instance;
        this.ownsInstance = ownsInstance;
        this.config = config;
        boolean member = instance.getLocalEndpoint() instanceof Member;
        this.description = "Hazelcast CP FencedLock leases via " + (member ? "member " : "client ")
                + instance.getName() + " of cluster '" + CpSubsystemCheck.clusterName(instance, config) + "', CP group " + config.cpGroup()
                + ", namespace " + config.namespace();
        this.timing = member ? CpSubsystemCheck.memberTiming(instance) : new CpSessionTiming(config.declaredSessionTtl(),
                config.declaredHeartbeat(), "declared in HazelcastLeaseConfig.cpSession");
        this.owners = new OwnerThreads(config.ownerThreads(), proxiesPerThread(config), config.operationTimeout(), description);
        this.peers = config.peerRanks() ? new HazelcastPeers(instance, config.namePrefix() + PEERS_MAP) : null;
        this.names = new LockNames(config);
        this.listeners = LeaseLossListeners.onOwnThread(description, "leasebox-hazelcast-listeners", LOG);
        this.deadlines = new LeaseDeadlines(config.clock(), listeners, description);
        this.release = new LockRelease(owners, names, deadlines, config.clock(), description);
        this.acquisition = new LockAcquisition(instance.getCPSubsystem()::getLock, owners, names, release, deadlines, config.clock(),
                description);
        this.renewal = new LockRenewal(owners, names, release, deadlines, listeners, config.clock());
        this.reconnection = new ClientReconnection(owners, listeners, this::renew, () -> closed, config.clock(),
                config.operationTimeout(), description);
    }

    /** Lock names a manager is expected to reuse: the drain's 4,096 row groups by default. */
    static final int REUSED_NAMES = 4_096;

    /**
     * How many FencedLock proxies each owner thread keeps: twice its share of {@link #REUSED_NAMES}
     * (names hash unevenly), at least 64, so that the proxies of a bounded key set stay cached.
     */
    static int proxiesPerThread(HazelcastLeaseConfig config) {
        return Math.max(64, 2 * ((REUSED_NAMES + config.ownerThreads() - 1) / config.ownerThreads()));
    }

    /** Starts the client or member {@code config} describes; {@link #close()} shuts it down. */
    public static HazelcastLeaseManager start(HazelcastLeaseConfig config) {
        HazelcastVersion.requireCpSubsystem();
        HazelcastInstance instance = HazelcastConnector.start(config);
        try {
            return open(instance, true, config);
        } catch (RuntimeException e) {
            instance.getLifecycleService().terminate();
            throw e;
        }
    }

    /** Uses an instance the caller started and keeps owning; {@link #close()} leaves it running. */
    public static HazelcastLeaseManager using(HazelcastInstance instance, HazelcastLeaseConfig config) {
        HazelcastVersion.requireCpSubsystem();
        return open(Objects.requireNonNull(instance, "instance"), false, config);
    }

    private static HazelcastLeaseManager open(HazelcastInstance instance, boolean owns, HazelcastLeaseConfig config) {
        HazelcastLeaseManager manager = new HazelcastLeaseManager(instance, owns, config);
        try {
            CpSubsystemCheck.requireRaft(instance, manager.owners.first(), config, manager.description);
            if (manager.peers != null) {
                manager.peers.start();
            }
            config.leaseTtl().ifPresent(ttl -> manager.timing.check(ttl).ifPresent(LOG::warn));
            manager.startWatching();
            return manager;
        } catch (IllegalArgumentException e) {
            manager.stopThreads();
            throw new LeaseManagerException(e.getMessage(), e);
        } catch (RuntimeException e) {
            manager.stopThreads();
            throw e;
        }
    }

    private void startWatching() {
        deadlines.start(config.reapInterval());
        for (OwnerThread owner : owners.all()) {
            owner.every(config.reapInterval(), () -> release.reapExpired(owner));
        }
        if (!(instance.getLocalEndpoint() instanceof Member)) {
            lifecycleRegistration = instance.getLifecycleService().addLifecycleListener(reconnection::onLifecycle);
        }
    }

    @Override
    public List<Lease> acquire(LeaseRequest request) {
        ensureOpen();
        if (request.keys().isEmpty()) {
            return List.of();
        }
        try {
            timing.requireAllowed(request.ttl(), "request ttl");
        } catch (IllegalArgumentException e) {
            throw new LeaseManagerException(e.getMessage(), e);
        }
        return acquisition.acquire(request);
    }

    /**
     * One {@code getFence()} per lock, whatever the number of its leases renewed: the lock still held
     * with its grant's fence renews them all. A lock found lost loses every lease under it; those not
     * in this call are reported at their own renewal.
     */
    @Override
    public List<Lease> renew(Collection<Lease> leases) {
        ensureOpen();
        return renewal.renew(leases);
    }

    /** Releases each lease still held: its lock is unlocked (one Raft round trip per lock, on its owner thread). */
    @Override
    public List<Lease> release(Collection<Lease> leases) {
        ensureOpen();
        return release.release(leases, false);
    }

    /**
     * Releases like {@link #release(Collection)} and then destroys each released key's lock, freeing
     * its memory in the CP group. Only for keys that will never be leased again: a destroyed lock
     * name can never be locked again (later attempts are not granted).
     */
    public List<Lease> releaseAndDestroy(Collection<Lease> leases) {
        ensureOpen();
        return release.release(leases, true);
    }

    /** The FencedLock a key is leased under (see {@link LockNames}). */
    String lockName(String key) {
        return names.of(key);
    }

    /**
     * This manager's place among the live managers of its namespace (the IMap
     * {@code <namespace>/%peers}, renewed every second, read locally), so that the claim store asks
     * different workers for different rows first; empty when {@link HazelcastLeaseConfig#peerRanks()}
     * is off or no heartbeat got through yet.
     */
    @Override
    public Optional<PeerRank> peerRank() {
        return closed || peers == null ? Optional.empty() : peers.rank();
    }

    @Override
    public void addLeaseLossListener(LeaseLossListener listener) {
        listeners.add(listener);
    }

    /** The CP session timing this manager validated against (for diagnostics and tests). */
    public Duration maxLeaseTtl() {
        return timing.maxLeaseTtl();
    }

    /** The CP group keeps every lock it ever created: a lock per row grows without bound (decision 0025). */
    @Override
    public String whyGroupRows() {
        return "Hazelcast's CP group keeps every FencedLock it ever created, so a lock per row grows its memory without bound";
    }

    @Override
    public String describe() {
        return description + " (" + timing.describe() + ")";
    }

    /** Publishes on the topic {@code <namespace>/%wake-up%<topic>} ({@link HazelcastWakeUps}). */
    @Override
    public void publish(String topic, String hint) {
        if (closed) {
            throw new IllegalStateException(description + " is closed; publish refused");
        }
        try {
            HazelcastWakeUps.publish(instance, HazelcastWakeUps.topicName(config.namePrefix(), topic), hint);
        } catch (RuntimeException e) {
            throw new LeaseManagerException(description + " could not publish a wake-up: " + e.getMessage(), e);
        }
    }

    @Override
    public WakeUpChannel.Subscription subscribe(String topic, WakeUpChannel.Listener listener) {
        if (closed) {
            throw new IllegalStateException(description + " is closed; subscribe refused");
        }
        return HazelcastWakeUps.subscribe(instance, HazelcastWakeUps.topicName(config.namePrefix(), topic), listener);
    }

    /**
     * Unlocks every lease still held (on the owner threads), stops the threads and, when this manager
     * started the instance, shuts it down.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (lifecycleRegistration != null) {
            try {
                instance.getLifecycleService().removeLifecycleListener(lifecycleRegistration);
            } catch (RuntimeException ignored) {
                LOG.debug("lifecycle listener already gone on {}", description);
            }
        }
        deadlines.stop();
        int left = release.unlockAll(config.operationTimeout());
        deadlines.clear();
        if (left > 0) {
            LOG.warn("{} lock(s) of {} could not be unlocked at close: they stay held until this instance's CP session ends{}", left, description,
                    ownsInstance ? " (the instance is shut down now)" : " (shut the instance down to end it)");
        }
        stopThreads();
        if (ownsInstance) {
            instance.getLifecycleService().shutdown();
        }
    }

    /** The acquisition path (for tests: its fault point). */
    LockAcquisition acquisition() {
        return acquisition;
    }

    /** The owner threads (for tests). */
    OwnerThreads ownerThreads() {
        return owners;
    }

    /**
     * Returns once every task queued on the owner threads before the call has run (for tests: an
     * unlock, a reaper run or a release in progress has finished by then).
     */
    void awaitOwnerThreads(Duration timeout) throws Exception {
        List<Future<?>> barriers = new ArrayList<>();
        for (OwnerThread owner : owners.all()) {
            barriers.add(owner.submit(() -> null));
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        for (Future<?> barrier : barriers) {
            barrier.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        }
    }

    private void stopThreads() {
        if (peers != null) {
            peers.close();
        }
        deadlines.stop();
        owners.shutdownNow();
        listeners.shutdown();
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("HazelcastLeaseManager is closed: " + description);
        }
    }
}
