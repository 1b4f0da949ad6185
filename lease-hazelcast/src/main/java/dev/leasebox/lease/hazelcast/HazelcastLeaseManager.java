package dev.leasebox.lease.hazelcast;

import dev.leasebox.lease.PeerRanking;
import com.hazelcast.cluster.Member;
import com.hazelcast.spi.exception.DistributedObjectDestroyedException;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.HazelcastInstanceNotActiveException;
import com.hazelcast.core.LifecycleEvent;
import com.hazelcast.cp.lock.FencedLock;
import com.hazelcast.cp.lock.exception.LockOwnershipLostException;
import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseLoss;
import dev.leasebox.lease.LeaseLossListener;
import dev.leasebox.lease.LeaseManager;
import dev.leasebox.lease.LeaseManagerException;
import dev.leasebox.lease.LeaseRequest;
import dev.leasebox.lease.PeerRank;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

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
 *   <li><b>Its ttl passes without a renewal.</b> This manager drops it on its owner thread, unlocks
 *       its lock once no other lease holds it, and tells its listeners
 *       ({@link LeaseLoss.Cause#DEADLINE_PASSED}); a live but stuck caller never keeps a key past its
 *       ttl.</li>
 *   <li><b>The CP session expires.</b> Every lock of this instance is freed by the cluster when its CP
 *       session misses heartbeats for the session TTL: the JVM died, froze, or was cut off. A crashed
 *       holder's keys become grantable {@code session TTL} after its last heartbeat, whatever the
 *       requested ttl; the next renewal reports the loss ({@link LeaseLoss.Cause#SESSION_EXPIRED}).
 *       Requests whose ttl exceeds session TTL minus heartbeat are refused, since a holder cut off
 *       right after a call could otherwise trust a lease the cluster already freed.</li>
 *   <li><b>A client loses its connection.</b> Listeners hear {@code connectionSuspended}; after
 *       reconnection every held lock is checked and the lost ones are reported.</li>
 *   <li><b>The CP group loses its majority.</b> Calls fail with {@link LeaseManagerException}; leases
 *       are kept until their ttl.</li>
 * </ul>
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
 * <h2>Lock names and memory</h2>
 * A CP group keeps every FencedLock it ever created, locked or not, until it is destroyed: leasing a
 * lock per row of an outbox would grow a member's heap with every row ever delivered (measured in a
 * two-minute bench: 653,354 lock objects on three members, snapshot copies included, with their
 * metrics, 1,065 MB of live heap). Callers that lease an unbounded set of keys therefore bound them
 * first: the drain groups its rows under a bounded set of group keys on this backend by default
 * ({@code dev.leasebox.outbox.grouped.GroupedLeaseManager}: 4,096 groups of 128 rows), and
 * {@link #releaseAndDestroy(Collection)} frees the lock of a key that will never be leased again; a
 * destroyed name can never be locked again, and a later attempt is simply not granted.
 */
public final class HazelcastLeaseManager implements LeaseManager, PeerRanking {

    private static final Logger LOG = LoggerFactory.getLogger(HazelcastLeaseManager.class);
    /** After the lock name prefix: the IMap of live managers, for {@link #peerRank()}. */
    static final String PEERS_MAP = "%peers";

    private final HazelcastInstance instance;
    private final boolean ownsInstance;
    private final HazelcastLeaseConfig config;
    private final CpSessionTiming timing;
    private final Clock clock;
    private final String description;
    private final OwnerThreads owners;
    private final HazelcastPeers peers;
    private final List<LeaseLossListener> listeners = new CopyOnWriteArrayList<>();
    private final ExecutorService notifier = Executors.newSingleThreadExecutor(r -> {
        Thread thread = new Thread(r, "leasebox-hazelcast-listeners");
        thread.setDaemon(true);
        return thread;
    });
    /**
     * The highest fence a {@code tryLock} of this manager returned. A new acquisition commits at a Raft
     * index above every fence returned before it was sent, so a {@code tryLock} answering with one no
     * higher re-entered a lock this thread held already.
     */
    private final AtomicLong highestFence = new AtomicLong();
    private volatile UUID lifecycleRegistration;
    private volatile boolean closed;

    private HazelcastLeaseManager(HazelcastInstance instance, boolean ownsInstance, HazelcastLeaseConfig config) {
        this.instance = instance;
        this.ownsInstance = ownsInstance;
        this.config = config;
        this.clock = config.clock();
        boolean member = instance.getLocalEndpoint() instanceof Member;
        this.description = "Hazelcast CP FencedLock leases via " + (member ? "member " : "client ")
                + instance.getName() + " of cluster '" + CpSubsystemCheck.clusterName(instance, config) + "', CP group " + config.cpGroup();
        this.timing = member ? CpSubsystemCheck.memberTiming(instance) : new CpSessionTiming(config.declaredSessionTtl(),
                config.declaredHeartbeat(), "declared in HazelcastLeaseConfig.cpSession");
        this.owners = new OwnerThreads(config.ownerThreads(), proxiesPerThread(config), config.operationTimeout(), description);
        this.peers = config.peerRanks() ? new HazelcastPeers(instance, config.lockNamePrefix() + PEERS_MAP) : null;
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
        for (OwnerThread owner : owners.all()) {
            owner.every(config.reapInterval(), () -> reapExpired(owner));
        }
        if (!(instance.getLocalEndpoint() instanceof Member)) {
            lifecycleRegistration = instance.getLifecycleService().addLifecycleListener(this::onLifecycle);
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
        Instant sent = clock.instant();
        Map<String, List<String>> byLock = new LinkedHashMap<>();
        request.keys().forEach(key -> byLock.computeIfAbsent(lockName(key), n -> new ArrayList<>()).add(key));
        Iterator<Map.Entry<String, List<String>>> next = byLock.entrySet().iterator();
        Map<String, Integer> order = new HashMap<>();
        request.keys().forEach(key -> order.put(key, order.size()));
        List<Lease> granted = new ArrayList<>();
        int remaining = request.maxGrants();
        while (remaining > 0 && next.hasNext()) {
            List<Assignment> round = new ArrayList<>();
            for (int assigned = 0; assigned < remaining && next.hasNext(); ) {
                Map.Entry<String, List<String>> group = next.next();
                round.add(new Assignment(group.getKey(), group.getValue()));
                assigned += group.getValue().size();
            }
            List<Lease> got;
            try {
                got = new ArrayList<>(owners.run("acquire", round, Assignment::lockName, (owner, assignments) -> lockAll(owner, assignments, request, sent)));
            } catch (LeaseManagerException e) {
                if (granted.isEmpty()) {
                    throw e;
                }
                LOG.warn("{}; returning the {} leases granted before it", e.getMessage(), granted.size());
                return granted;
            }
            if (got.size() > remaining) {
                got.sort(Comparator.comparingInt(lease -> order.get(lease.key())));
                trim(got.subList(remaining, got.size()));
                got = got.subList(0, remaining);
            }
            granted.addAll(got);
            remaining -= got.size();
        }
        return granted;
    }

    /**
     * Gives up leases a round granted beyond the request's limit, the last in request order: each
     * one's lock is unlocked (a round trip each, on its owner thread).
     */
    private void trim(List<Lease> excess) {
        try {
            owners.run("trim", List.copyOf(excess), this::lockNameOf, (owner, leases) -> {
                for (Lease lease : leases) {
                    HeldLock held = owner.held.get(lockName(lease.key()));
                    if (held == null) {
                        continue;
                    }
                    held.remove(lease.key());
                    if (held.isEmpty()) {
                        unlockOrKeep(owner, held);
                    }
                }
                return List.of();
            });
        } catch (LeaseManagerException e) {
            LOG.warn("could not give up {} leases granted beyond a request's limit on {} ({}); they lapse at their ttl", excess.size(), description, e.getMessage());
        }
    }

    /** The keys of one request assigned to one lock in one round: all of them are granted with it, or none. */
    private record Assignment(String lockName, List<String> keys) {
    }

    /**
     * One {@code tryLock} per assignment, on its owner thread, except for a lock this manager holds
     * already (for a lease not lapsed): that one grants nothing, with no round trip.
     */
    private List<Lease> lockAll(OwnerThread owner, List<Assignment> assignments, LeaseRequest request, Instant sent) {
        List<Lease> granted = new ArrayList<>();
        for (Assignment assignment : assignments) {
            String name = assignment.lockName();
            if (owner.leaked.containsKey(name)) {
                continue; // a tryLock would re-enter it under an earlier grant's fence
            }
            HeldLock current = owner.held.get(name);
            if (current != null && !expireDue(owner, current)) {
                continue;
            }
            if (owner.leaked.containsKey(name)) {
                continue;
            }
            FencedLock lock;
            long fence;
            try {
                lock = owner.lock(name, instance.getCPSubsystem()::getLock);
                long highestBefore = highestFence.get();
                fence = tryLock(lock);
                if (fence != FencedLock.INVALID_FENCE && fence <= highestBefore) {
                    fence = refuseRepeatedFence(owner, name, lock, fence, highestBefore);
                }
                if (fence != FencedLock.INVALID_FENCE) {
                    highestFence.accumulateAndGet(fence, Math::max);
                }
            } catch (RuntimeException e) {
                owner.forget(name);
                if (granted.isEmpty()) {
                    throw e;
                }
                LOG.warn("tryLock of {} failed on {} ({}); returning the {} leases granted before it", name, description, e, granted.size());
                return granted;
            }
            if (fence == FencedLock.INVALID_FENCE) {
                continue;
            }
            HeldLock held = new HeldLock(name, lock, fence);
            for (String key : assignment.keys()) {
                Lease lease = request.grant(key, fence, sent);
                held.add(lease, sent.plus(request.ttl()));
                granted.add(lease);
            }
            owner.held.put(name, held);
        }
        return granted;
    }

    /**
     * A {@code tryLock} answered {@code fence}, no higher than a fence this manager was handed before
     * it was sent: a new acquisition would have a higher one, so this thread held the lock already and
     * re-entered it (an unlock that failed unnoticed), or the CP Subsystem was reset and its Raft
     * indexes start again. Either way the fence may have been handed out before: the acquisition is
     * undone and nothing is granted. A re-entered lock is kept as leaked, to be unlocked until free.
     * Returns INVALID_FENCE. Owner thread only.
     */
    private long refuseRepeatedFence(OwnerThread owner, String name, FencedLock lock, long fence, long highestBefore) {
        int count;
        try {
            count = lock.getLockCount();
        } catch (RuntimeException e) {
            count = 2; // unknown: assume re-entered, so the retries unlock until the cluster says it is free
        }
        if (count > 1) {
            LOG.warn("tryLock of {} on {} re-entered a lock this manager still held (lock count {}, fence {}, an earlier grant's): "
                    + "not granted; it is unlocked in the background until free", name, description, count, fence);
        } else {
            LOG.warn("tryLock of {} on {} returned fence {}, not above fence {} handed out before: the CP Subsystem was reset and "
                    + "its fences repeat; not granted (restart the workers of this cluster, and check the store's fence high-water marks)",
                    name, description, fence, highestBefore);
        }
        LeakedLock leaked = new LeakedLock(name, lock, fence, count, clock.instant());
        leaked.retryNow(clock.instant());
        owner.leaked.put(name, leaked);
        retryLeaked(owner, leaked);
        return FencedLock.INVALID_FENCE;
    }

    /** One tryLock on the calling owner thread: the fence, or INVALID_FENCE when another holds the key or its lock was destroyed. */
    private static long tryLock(FencedLock lock) {
        try {
            return lock.tryLockAndGetFence();
        } catch (DistributedObjectDestroyedException destroyed) {
            return FencedLock.INVALID_FENCE;
        }
    }

    /**
     * One {@code getFence()} per lock, whatever the number of its leases renewed: the lock still held
     * with its grant's fence renews them all. A lock found lost loses every lease under it; those not
     * in this call are reported at their own renewal.
     */
    @Override
    public List<Lease> renew(Collection<Lease> leases) {
        ensureOpen();
        Instant sent = clock.instant();
        // filled by several owner threads at once
        List<Lease> lost = new CopyOnWriteArrayList<>();
        List<Lease> sessionLost = new CopyOnWriteArrayList<>();
        List<Lease> renewed = owners.run("renew", leases, this::lockNameOf, (owner, batch) -> {
            Map<String, List<Lease>> byLock = new LinkedHashMap<>();
            batch.forEach(lease -> byLock.computeIfAbsent(lockName(lease.key()), n -> new ArrayList<>()).add(lease));
            List<Lease> kept = new ArrayList<>();
            for (Map.Entry<String, List<Lease>> entry : byLock.entrySet()) {
                HeldLock current = owner.held.get(entry.getKey());
                if (current == null || expireDue(owner, current)) {
                    lost.addAll(entry.getValue());
                    continue;
                }
                List<Lease> alive = new ArrayList<>();
                Instant now = clock.instant();
                for (Lease lease : entry.getValue()) {
                    (current.holds(lease, now) ? alive : lost).add(lease);
                }
                if (alive.isEmpty()) {
                    continue;
                }
                try {
                    if (current.lock().getFence() == current.fence()) {
                        for (Lease lease : alive) {
                            current.extend(lease, sent.plus(lease.ttl()));
                            kept.add(lease.renewed(sent));
                        }
                        continue;
                    }
                    lost.addAll(alive);
                } catch (LockOwnershipLostException e) {
                    sessionLost.addAll(alive);
                } catch (IllegalMonitorStateException e) {
                    lost.addAll(alive);
                }
                owner.held.remove(current.lockName());
            }
            return kept;
        });
        report(lost, LeaseLoss.Cause.RENEWAL_REFUSED, "renewal found the lock expired, released or held by another grant");
        report(sessionLost, LeaseLoss.Cause.SESSION_EXPIRED, "the CP session of this instance expired and the cluster freed its locks");
        return renewed;
    }

    /** Releases each lease still held: its lock is unlocked (one Raft round trip per lock, on its owner thread). */
    @Override
    public List<Lease> release(Collection<Lease> leases) {
        return release(leases, false);
    }

    /**
     * Releases like {@link #release(Collection)} and then destroys each released key's lock, freeing
     * its memory in the CP group. Only for keys that will never be leased again: a destroyed lock
     * name can never be locked again (later attempts are not granted).
     */
    public List<Lease> releaseAndDestroy(Collection<Lease> leases) {
        return release(leases, true);
    }

    private List<Lease> release(Collection<Lease> leases, boolean destroy) {
        ensureOpen();
        return owners.run(destroy ? "releaseAndDestroy" : "release", leases, this::lockNameOf, (owner, batch) -> {
            List<Lease> released = new ArrayList<>();
            for (Lease lease : batch) {
                HeldLock current = owner.held.get(lockName(lease.key()));
                if (current == null || expireDue(owner, current) || !current.holds(lease, clock.instant())) {
                    continue;
                }
                current.remove(lease.key());
                if (!current.isEmpty()) {
                    released.add(lease);
                    continue;
                }
                if (!unlockOrKeep(owner, current)) {
                    continue;
                }
                released.add(lease);
                if (destroy) {
                    owner.forget(current.lockName());
                    current.lock().destroy();
                }
            }
            return released;
        });
    }

    /**
     * Drops the leases of {@code held} whose ttl has passed, reporting them, and unlocks it when none
     * is left; true when it did (the lock is gone). Owner thread only.
     */
    private boolean expireDue(OwnerThread owner, HeldLock held) {
        List<Lease> lapsed = held.removeExpired(clock.instant());
        if (lapsed.isEmpty()) {
            return false;
        }
        report(lapsed, LeaseLoss.Cause.DEADLINE_PASSED, "not renewed within its ttl; " + description + " let it lapse");
        if (!held.isEmpty()) {
            return false;
        }
        unlockOrKeep(owner, held);
        return true;
    }

    private void reapExpired(OwnerThread owner) {
        for (HeldLock held : List.copyOf(owner.held.values())) {
            try {
                expireDue(owner, held);
            } catch (RuntimeException e) {
                LOG.warn("reaping lock {} on {} failed: {}", held.lockName(), description, e.toString());
            }
        }
        Instant now = clock.instant();
        for (LeakedLock leaked : List.copyOf(owner.leaked.values())) {
            if (leaked.due(now)) {
                retryLeaked(owner, leaked);
            }
        }
    }

    /**
     * Unlocks {@code held}, which has no lease left, and stops tracking it; true when the lock is free
     * of this thread (unlocked, or found not held by it: the session ended, or it was destroyed).
     * When the unlock fails otherwise, it may not have taken effect: the lock is kept as leaked, never
     * granted again (a tryLock would re-enter it under this fence), and unlocked again in the
     * background. Owner thread only.
     */
    private boolean unlockOrKeep(OwnerThread owner, HeldLock held) {
        owner.held.remove(held.lockName());
        try {
            held.lock().unlock();
            return true;
        } catch (IllegalMonitorStateException | DistributedObjectDestroyedException notHeld) {
            LOG.debug("{} on {} was no longer held at its unlock: {}", held.lockName(), description, notHeld.toString());
            return true;
        } catch (HazelcastInstanceNotActiveException shutDown) {
            LOG.warn("could not unlock {} on {}: the instance is shut down; the cluster frees the lock when its CP session ends",
                    held.lockName(), description);
            return true;
        } catch (RuntimeException e) {
            owner.leaked.put(held.lockName(), new LeakedLock(held.lockName(), held.lock(), held.fence(), 1, clock.instant()));
            LOG.warn("unlock of {} (fence {}) on {} failed: {}. The lock may still be held by this manager's CP session: it is not "
                    + "granted again, and its unlock is retried until it succeeds or the session ends; other managers get its keys "
                    + "only then (if the cluster stays unreachable, closing this manager's instance ends the session)",
                    held.lockName(), held.fence(), description, e.toString());
            return false;
        }
    }

    /** One more unlock of a leaked lock; it is dropped once free of this thread. Owner thread only. */
    private void retryLeaked(OwnerThread owner, LeakedLock leaked) {
        try {
            while (true) {
                leaked.lock().unlock();
                if (leaked.unlocked()) {
                    break;
                }
            }
            LOG.info("unlocked {} on {}: its keys can be granted again", leaked.lockName(), description);
        } catch (IllegalMonitorStateException | DistributedObjectDestroyedException | HazelcastInstanceNotActiveException notHeld) {
            LOG.info("{} on {} is no longer held by this manager ({}): its keys can be granted again", leaked.lockName(), description, notHeld.toString());
        } catch (RuntimeException e) {
            leaked.failed(clock.instant());
            LOG.warn("unlock of {} on {} failed again ({} attempts): {}; retrying", leaked.lockName(), description, leaked.attempts(), e.toString());
            return;
        }
        owner.leaked.remove(leaked.lockName());
    }

    /** Client connection changes: suspended while disconnected, re-verified on reconnection. */
    private void onLifecycle(LifecycleEvent event) {
        if (closed) {
            return;
        }
        if (event.getState() == LifecycleEvent.LifecycleState.CLIENT_DISCONNECTED) {
            String detail = description + " lost its connection to the cluster";
            notifier.execute(() -> listeners.forEach(l -> l.connectionSuspended(detail)));
        } else if (event.getState() == LifecycleEvent.LifecycleState.CLIENT_CONNECTED) {
            notifier.execute(this::verifyAfterReconnect);
        }
    }

    private void verifyAfterReconnect() {
        for (OwnerThread owner : owners.all()) {
            owner.submit(() -> {
                owner.leaked.values().forEach(leaked -> leaked.retryNow(clock.instant()));
                return null;
            });
        }
        List<Lease> held = new ArrayList<>();
        for (OwnerThread owner : owners.all()) {
            try {
                held.addAll(owner.submit(() -> owner.held.values().stream().flatMap(lock -> lock.leases().stream()).toList())
                        .get(config.operationTimeout().toMillis(), TimeUnit.MILLISECONDS));
            } catch (Exception e) {
                LOG.warn("could not list held leases of {}: {}", description, e.toString());
            }
        }
        try {
            renew(held);
            String detail = description + " reconnected and verified its leases";
            listeners.forEach(l -> l.connectionRestored(detail));
        } catch (RuntimeException e) {
            LOG.warn("verifying leases after reconnection failed on {}: {}", description, e.toString());
        }
    }

    /**
     * The FencedLock a key is leased under: a lock of its own. '%' cannot start an escaped key's
     * '%'-sequence other than %25 and %40, so this manager's own objects ({@code <prefix>%peers}) never
     * meet a key's name. '@' selects a CP group in Hazelcast, so keys are escaped.
     */
    String lockName(String key) {
        return inGroup(config.lockNamePrefix() + key.replace("%", "%25").replace("@", "%40"));
    }

    private String lockNameOf(Lease lease) {
        return lockName(lease.key());
    }

    private String inGroup(String name) {
        return "default".equals(config.cpGroup()) ? name : name + "@" + config.cpGroup();
    }

    private void report(List<Lease> lost, LeaseLoss.Cause cause, String detail) {
        if (lost.isEmpty() || listeners.isEmpty()) {
            return;
        }
        LeaseLoss loss = new LeaseLoss(lost, cause, detail + " (" + description + ")");
        notifier.execute(() -> listeners.forEach(listener -> {
            try {
                listener.leasesLost(loss);
            } catch (RuntimeException e) {
                LOG.warn("a lease loss listener failed: {}", e.toString());
            }
        }));
    }

    /**
     * This manager's place among the live managers of its lock name prefix (the IMap
     * {@code <prefix>%peers}, renewed every second, read locally), so that the claim store asks
     * different workers for different rows first; empty when {@link HazelcastLeaseConfig#peerRanks()}
     * is off or no heartbeat got through yet.
     */
    @Override
    public Optional<PeerRank> peerRank() {
        return closed || peers == null ? Optional.empty() : peers.rank();
    }

    @Override
    public void addLeaseLossListener(LeaseLossListener listener) {
        listeners.add(Objects.requireNonNull(listener, "listener"));
    }

    /** The CP session timing this manager validated against (for diagnostics and tests). */
    public Duration maxLeaseTtl() {
        return timing.maxLeaseTtl();
    }

    @Override
    public String describe() {
        return description + " (" + timing.describe() + ")";
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
        List<Future<?>> unlocks = new ArrayList<>();
        for (OwnerThread owner : owners.all()) {
            unlocks.add(owner.submit(() -> {
                List<LeakedLock> earlier = List.copyOf(owner.leaked.values());
                List.copyOf(owner.held.values()).forEach(held -> unlockOrKeep(owner, held));
                earlier.forEach(leaked -> retryLeaked(owner, leaked));
                int left = owner.leaked.size();
                owner.leaked.clear();
                return left;
            }));
        }
        int left = 0;
        for (Future<?> unlock : unlocks) {
            try {
                left += (Integer) unlock.get(config.operationTimeout().toMillis(), TimeUnit.MILLISECONDS);
            } catch (Exception e) {
                left++;
                LOG.warn("leases of {} not all unlocked at close ({})", description, e.toString());
            }
        }
        if (left > 0) {
            LOG.warn("{} lock(s) of {} could not be unlocked at close: they stay held until this instance's CP session ends{}", left, description,
                    ownsInstance ? " (the instance is shut down now)" : " (shut the instance down to end it)");
        }
        stopThreads();
        if (ownsInstance) {
            instance.getLifecycleService().shutdown();
        }
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
        owners.shutdownNow();
        notifier.shutdown();
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("HazelcastLeaseManager is closed: " + description);
        }
    }
}
