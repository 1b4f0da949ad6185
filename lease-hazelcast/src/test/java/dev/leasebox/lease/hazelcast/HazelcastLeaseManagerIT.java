package dev.leasebox.lease.hazelcast;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.cp.CPGroupId;
import com.hazelcast.cp.CPSubsystem;
import com.hazelcast.cp.lock.FencedLock;
import com.hazelcast.cp.internal.datastructures.lock.LockService;
import com.hazelcast.cp.internal.datastructures.spi.blocking.ResourceRegistry;
import com.hazelcast.instance.impl.HazelcastInstanceProxy;
import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseManager;
import dev.leasebox.lease.LeaseRequest;
import dev.leasebox.lease.PeerRank;
import dev.leasebox.lease.contract.LeaseManagerContract;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The lease contract against three embedded CP members (session TTL 10 s, heartbeat 1 s). Each
 * manager the kit asks for sits on the next member in turn, with its own owner threads, as
 * another node's would.
 */
class HazelcastLeaseManagerIT extends LeaseManagerContract {

    private static CpCluster cluster;
    private final AtomicInteger next = new AtomicInteger();

    @BeforeAll
    static void startCluster() {
        cluster = CpCluster.startThreeCpMembers();
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Override
    protected LeaseManager newManager() {
        return HazelcastLeaseManager.using(cluster.members.get(next.getAndIncrement() % cluster.members.size()),
                HazelcastLeaseConfig.existingInstance().leaseTtl(longLeaseTtl()).build());
    }

    /** The manager unlocks an unrenewed lease at its ttl; 3 s keeps the expiry tests short. */
    @Override
    protected Duration leaseTtl() {
        return Duration.ofSeconds(3);
    }

    /** At most session TTL minus heartbeat (9 s): longer ttls are refused. */
    @Override
    protected Duration longLeaseTtl() {
        return Duration.ofSeconds(9);
    }

    /** Each grant and unlock is a Raft commit and the reaper unlocks lapsed leases every 250 ms. */
    @Override
    protected Duration racingTtl() {
        return Duration.ofSeconds(1);
    }

    @Test
    void fencesGrowAcrossDifferentKeysOfOneCpGroup() {
        HazelcastLeaseManager a = hazelcastManager();
        HazelcastLeaseManager b = hazelcastManager();
        long last = 0;
        for (int i = 0; i < 6; i++) {
            HazelcastLeaseManager holder = i % 2 == 0 ? a : b;
            List<Lease> granted = holder.acquire(new LeaseRequest(List.of(key("any-" + i)), owner(), longLeaseTtl()));
            assertThat(granted).hasSize(1);
            assertThat(granted.get(0).fence()).as("fence of grant %d, another key", i).isGreaterThan(last);
            last = granted.get(0).fence();
        }
    }

    /**
     * A lock this manager still holds but no longer tracks (as after an unlock that failed unnoticed):
     * a tryLock on its owner thread re-enters it and answers the earlier grant's fence. That is not
     * a grant; the manager undoes it and frees the lock, so another manager gets the key at once.
     */
    @Test
    void aTryLockThatReEntersALockStillHeldGrantsNothingAndFreesTheLock() throws Exception {
        HazelcastLeaseManager a = hazelcastManager();
        HazelcastLeaseManager b = hazelcastManager();
        String key = key("re-entered");
        Lease first = a.acquire(new LeaseRequest(List.of(key), owner(), longLeaseTtl())).get(0);
        String name = a.lockName(key);
        OwnerThread thread = a.ownerThreads().of(name);
        assertThat(thread.submit(() -> thread.held.remove(name)).get(10, java.util.concurrent.TimeUnit.SECONDS)).isNotNull();

        List<Lease> again = a.acquire(new LeaseRequest(List.of(key), owner(), longLeaseTtl()));

        assertThat(again).as("a re-entered lock's fence %d is not granted again", first.fence()).isEmpty();
        List<Lease> taken = b.acquire(new LeaseRequest(List.of(key), owner(), longLeaseTtl()));
        assertThat(taken).as("the re-entered lock was freed").hasSize(1);
        assertThat(taken.get(0).fence()).isGreaterThan(first.fence());
    }

    @Test
    void aReleasedAndDestroyedKeyIsNeverGrantedAgain() {
        HazelcastLeaseManager a = hazelcastManager();
        HazelcastLeaseManager b = hazelcastManager();
        String key = key("destroyed");
        List<Lease> held = a.acquire(new LeaseRequest(List.of(key), owner(), longLeaseTtl()));

        assertThat(a.releaseAndDestroy(held)).hasSize(1);

        assertThat(b.acquire(new LeaseRequest(List.of(key), owner(), longLeaseTtl()))).as("stale attempt on a destroyed lock").isEmpty();
        assertThat(a.acquire(new LeaseRequest(List.of(key), owner(), longLeaseTtl()))).isEmpty();
    }

    /** Row keys of the drain are keys like any other: a lock each, whatever their ids. */
    @Test
    void everyKeyHasALockOfItsOwnRowKeysIncluded() {
        String prefix = uniquePrefix();
        try (HazelcastLeaseManager a = prefixed(0, prefix); HazelcastLeaseManager b = prefixed(1, prefix)) {
            List<Lease> granted = a.acquire(keys(List.of("row-3", "row-11", "row-4")));
            assertThat(granted).extracting(Lease::fence).as("a tryLock each").doesNotHaveDuplicates().hasSize(3);
            assertThat(b.acquire(keys(List.of("row-3", "row-12", "slot-1")))).extracting(Lease::key)
                    .as("only the keys a holds are refused").containsExactlyInAnyOrder("row-12", "slot-1");
            assertThat(a.describe()).doesNotContain("row");
        }
    }

    @Test
    void theCpGroupKeepsEveryLockItEverCreated() {
        String prefix = uniquePrefix();
        try (HazelcastLeaseManager own = prefixed(0, prefix)) {
            for (int first = 0; first < 100; first += 10) {
                List<String> keys = java.util.stream.IntStream.range(first, first + 10).mapToObj(i -> "row-" + i).toList();
                assertThat(own.release(own.acquire(keys(keys)))).hasSize(10);
            }
            CPGroupId group = cluster.members.get(0).getCPSubsystem().getLock(prefix + "x").getGroupId();
            await().untilAsserted(() -> assertThat(lockNames(cluster.members.get(0), group, prefix))
                    .as("a lock per key, kept after unlock: why the drain groups rows on this backend").hasSize(100));
        }
    }

    /**
     * Fetching a FencedLock proxy is a round trip answered with a linearizable read of the METADATA
     * CP group; the manager fetches each lock's proxy once, not once per acquire.
     */
    @Test
    void eachLockProxyIsFetchedOnceAndKeptAcrossAcquires() {
        String prefix = uniquePrefix();
        Map<String, AtomicInteger> fetches = new ConcurrentHashMap<>();
        HazelcastInstance counting = countingLockFetches(cluster.members.get(0), fetches);
        List<String> keys = java.util.stream.IntStream.range(0, 8).mapToObj(i -> "row-group-" + i).toList();
        try (HazelcastLeaseManager a = HazelcastLeaseManager.using(counting,
                HazelcastLeaseConfig.existingInstance().namespace(namespaceOf(prefix)).leaseTtl(longLeaseTtl()).build())) {
            for (int round = 0; round < 5; round++) {
                assertThat(a.release(a.acquire(keys(keys)))).as("round %d", round).hasSize(8);
            }
        }
        Map<String, Integer> perLock = new TreeMap<>();
        fetches.forEach((name, count) -> {
            if (name.startsWith(prefix + "row-group-")) {
                perLock.put(name, count.get());
            }
        });
        assertThat(perLock).as("fetches of each lock's proxy over 5 rounds of 8 keys").hasSize(8)
                .allSatisfy((name, count) -> assertThat(count).as(name).isEqualTo(1));
    }

    @Test
    void aLimitedRequestGrantsExactlyItsLimitInRequestOrderSkippingHeldKeys() {
        String prefix = uniquePrefix();
        try (HazelcastLeaseManager a = prefixed(0, prefix); HazelcastLeaseManager b = prefixed(1, prefix)) {
            assertThat(b.acquire(keys(List.of("k0")))).hasSize(1);
            List<String> keys = java.util.stream.IntStream.range(0, 12).mapToObj(i -> "k" + i).toList();

            List<Lease> granted = a.acquire(keys(keys).limitedTo(6));

            assertThat(granted).extracting(Lease::key).containsExactlyInAnyOrder("k1", "k2", "k3", "k4", "k5", "k6");
            assertThat(b.acquire(keys(List.of("k7", "k11")))).as("keys beyond the limit were given back").hasSize(2);
        }
    }

    @Test
    void liveManagersOfOnePrefixHoldDistinctPeerRanksAndRerankWhenOneCloses() {
        String prefix = uniquePrefix();
        try (HazelcastLeaseManager a = ranked(0, prefix); HazelcastLeaseManager b = ranked(1, prefix);
             HazelcastLeaseManager other = ranked(2, uniquePrefix()); HazelcastLeaseManager c = ranked(2, prefix)) {
            await().untilAsserted(() -> assertThat(ranks(a, b, c)).containsExactlyInAnyOrder(
                    new PeerRank(0, 3), new PeerRank(1, 3), new PeerRank(2, 3)));
            assertThat(other.peerRank()).as("another prefix has peers of its own").contains(new PeerRank(0, 1));

            c.close(); // closing again at the end of the block does nothing

            assertThat(c.peerRank()).isEmpty();
            await().untilAsserted(() -> assertThat(ranks(a, b)).containsExactlyInAnyOrder(new PeerRank(0, 2), new PeerRank(1, 2)));
        }
    }

    @Test
    void aManagerWithPeerRanksOffReportsNoneAndIsNotCounted() {
        String prefix = uniquePrefix();
        try (HazelcastLeaseManager on = ranked(0, prefix);
             HazelcastLeaseManager off = HazelcastLeaseManager.using(cluster.members.get(1), HazelcastLeaseConfig.existingInstance()
                     .namespace(namespaceOf(prefix)).peerRanks(false).leaseTtl(longLeaseTtl()).build())) {
            assertThat(off.peerRank()).isEmpty();
            assertThat(on.peerRank()).contains(new PeerRank(0, 1));
        }
    }

    private static List<PeerRank> ranks(HazelcastLeaseManager... managers) {
        return Arrays.stream(managers).map(HazelcastLeaseManager::peerRank).flatMap(Optional::stream).toList();
    }

    /** A manager of the namespace of {@code prefix}, reporting peer ranks. */
    private HazelcastLeaseManager ranked(int member, String prefix) {
        return HazelcastLeaseManager.using(cluster.members.get(member),
                HazelcastLeaseConfig.existingInstance().namespace(namespaceOf(prefix)).leaseTtl(longLeaseTtl()).build());
    }

    /** Without peer ranks. */
    private HazelcastLeaseManager prefixed(int member, String prefix) {
        return HazelcastLeaseManager.using(cluster.members.get(member),
                HazelcastLeaseConfig.existingInstance().namespace(namespaceOf(prefix)).peerRanks(false).leaseTtl(longLeaseTtl()).build());
    }

    private LeaseRequest keys(List<String> keys) {
        return new LeaseRequest(keys, owner(), longLeaseTtl());
    }

    /** {@code <namespace>/} of a fresh namespace: what every name its managers create starts with. */
    private static String uniquePrefix() {
        return "hz-it-" + UUID.randomUUID() + "/";
    }

    private static String namespaceOf(String prefix) {
        return prefix.substring(0, prefix.length() - 1);
    }

    /** The FencedLocks under {@code prefix} in a member's replica of the CP group (Hazelcast internals: a test-only look). */
    private static List<String> lockNames(HazelcastInstance member, CPGroupId group, String prefix) {
        LockService service = ((HazelcastInstanceProxy) member).getOriginal().node.getNodeEngine().getService(LockService.SERVICE_NAME);
        ResourceRegistry<?, ?> registry = service.getRegistryOrNull(group);
        if (registry == null) {
            return List.of();
        }
        return List.copyOf(registry.getResources().keySet()).stream().filter(name -> name.startsWith(prefix)).toList();
    }

    /**
     * {@code member}, but counting {@code getCPSubsystem().getLock(name)} calls by name (a counting
     * wrapper over the real instance: every call still goes to the member).
     */
    /** The FencedLock methods that call the CP group (the proxy's own getters do not). */
    private static final Set<String> LOCK_ROUND_TRIPS = Set.of("lock", "lockAndGetFence", "tryLock", "tryLockAndGetFence",
            "unlock", "getFence", "isLocked", "isLockedByCurrentThread", "getLockCount", "destroy");

    private static HazelcastInstance countingLockFetches(HazelcastInstance member, Map<String, AtomicInteger> fetches) {
        return counting(member, fetches, new ConcurrentHashMap<>());
    }

    /**
     * {@code member}, but counting {@code getCPSubsystem().getLock(name)} calls by name, and the
     * calls on the FencedLocks it returns by method name (every call still goes to the member).
     */
    private static HazelcastInstance counting(HazelcastInstance member, Map<String, AtomicInteger> fetches,
                                              Map<String, AtomicInteger> lockCalls) {
        CPSubsystem cp = member.getCPSubsystem();
        CPSubsystem countingCp = (CPSubsystem) Proxy.newProxyInstance(CPSubsystem.class.getClassLoader(), new Class<?>[]{CPSubsystem.class},
                (proxy, method, args) -> {
                    if (!method.getName().equals("getLock")) {
                        return invoke(method, cp, args);
                    }
                    fetches.computeIfAbsent((String) args[0], n -> new AtomicInteger()).incrementAndGet();
                    FencedLock lock = (FencedLock) invoke(method, cp, args);
                    return Proxy.newProxyInstance(FencedLock.class.getClassLoader(), new Class<?>[]{FencedLock.class},
                            (lockProxy, lockMethod, lockArgs) -> {
                                if (LOCK_ROUND_TRIPS.contains(lockMethod.getName())) {
                                    lockCalls.computeIfAbsent(lockMethod.getName(), n -> new AtomicInteger()).incrementAndGet();
                                }
                                return invoke(lockMethod, lock, lockArgs);
                            });
                });
        return (HazelcastInstance) Proxy.newProxyInstance(HazelcastInstance.class.getClassLoader(), new Class<?>[]{HazelcastInstance.class},
                (proxy, method, args) -> method.getName().equals("getCPSubsystem") ? countingCp : invoke(method, member, args));
    }

    private static Object invoke(Method method, Object target, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    private HazelcastLeaseManager hazelcastManager() {
        return (HazelcastLeaseManager) manager();
    }

    @Override
    protected Duration expiryTimeout() {
        return leaseTtl().plusSeconds(5);
    }
}
