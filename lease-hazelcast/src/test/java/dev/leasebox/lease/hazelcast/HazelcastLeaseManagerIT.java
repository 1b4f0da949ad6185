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
import dev.leasebox.lease.LeaseManagerException;
import dev.leasebox.lease.LeaseRequest;
import dev.leasebox.lease.PeerRank;
import dev.leasebox.lease.contract.LeaseManagerContract;
import dev.leasebox.testkit.MutableClock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.LongStream;

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

    /**
     * The drain's row keys, which take the slot path: two rows of one block (one lock, one grant for both when
     * asked together) and a row of the next block, at a block no other test uses.
     */
    @Override
    protected List<String> fuzzKeys() {
        long block = 128L * (1 + java.util.concurrent.ThreadLocalRandom.current().nextLong(1_000_000));
        return List.of("row-" + block, "row-" + (block + 1), "row-" + (block + 128));
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

    @Test
    void rowsOfOneLockSlotAreNotLeasedAtOnceAndTheirFencesStillGrow() {
        String prefix = uniquePrefix();
        try (HazelcastLeaseManager a = slotted(0, prefix, 8); HazelcastLeaseManager b = slotted(1, prefix, 8)) {
            Lease row5 = a.acquire(rows(List.of(5L))).get(0);

            assertThat(b.acquire(rows(List.of(13L)))).as("row 13 shares slot 5 with a's row 5").isEmpty();
            List<Lease> fromHeldSlot = a.acquire(rows(List.of(13L)));
            assertThat(fromHeldSlot).as("the slot's holder gets it from the held lock, under its fence").hasSize(1)
                    .allSatisfy(lease -> assertThat(lease.fence()).isEqualTo(row5.fence()));
            assertThat(a.release(fromHeldSlot)).hasSize(1);
            List<Lease> otherSlot = b.acquire(rows(List.of(6L)));
            assertThat(otherSlot).as("row 6 has a slot of its own").hasSize(1);
            assertThat(a.renew(List.of(row5))).as("row 5 is still a's").hasSize(1);

            assertThat(a.release(List.of(row5))).hasSize(1);
            Lease row13 = b.acquire(rows(List.of(13L))).get(0);
            assertThat(row13.fence()).isGreaterThan(Math.max(row5.fence(), otherSlot.get(0).fence()));
            assertThat(a.renew(List.of(row5))).as("a's released grant of the slot").isEmpty();
            assertThat(b.renew(List.of(row13))).hasSize(1);
        }
    }

    @Test
    void aBatchAskingForTwoRowsOfOneSlotGetsBothUnderOneGrant() {
        try (HazelcastLeaseManager a = slotted(0, uniquePrefix(), 8)) {
            List<Lease> granted = a.acquire(rows(List.of(3L, 11L, 4L)));
            assertThat(granted.stream().map(Lease::key)).containsExactlyInAnyOrder(
                    RowKeys.leaseKey(3), RowKeys.leaseKey(11), RowKeys.leaseKey(4));
            Map<String, Long> fences = new HashMap<>();
            granted.forEach(lease -> fences.put(lease.key(), lease.fence()));
            assertThat(fences.get(RowKeys.leaseKey(3))).as("rows 3 and 11 share slot 3 and its grant")
                    .isEqualTo(fences.get(RowKeys.leaseKey(11)))
                    .isNotEqualTo(fences.get(RowKeys.leaseKey(4)));
        }
    }

    @Test
    void theCpGroupKeepsEveryLockOfItsOwnButNoMoreRowLocksThanSlots() {
        String perRow = uniquePrefix();
        String slottedPrefix = uniquePrefix();
        try (HazelcastLeaseManager own = slotted(0, perRow, 0); HazelcastLeaseManager slots = slotted(1, slottedPrefix, 8)) {
            for (long first = 0; first < 100; first += 10) {
                List<Long> ids = LongStream.range(first, first + 10).boxed().toList();
                assertThat(own.release(own.acquire(rows(ids)))).hasSize(10);
                for (Long id : ids) {
                    assertThat(slots.release(slots.acquire(rows(List.of(id))))).as("row %d", id).hasSize(1);
                }
            }
            CPGroupId group = cluster.members.get(0).getCPSubsystem().getLock(perRow + "x").getGroupId();
            await().untilAsserted(() -> assertThat(lockNames(cluster.members.get(0), group, perRow)).as("a lock per row, kept after unlock").hasSize(100));
            for (HazelcastInstance member : cluster.members) {
                assertThat(lockNames(member, group, slottedPrefix)).as("row locks of %s", member.getName()).hasSizeLessThanOrEqualTo(8);
            }
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
        List<Long> ids = LongStream.range(0, 8).boxed().toList();
        try (HazelcastLeaseManager a = HazelcastLeaseManager.using(counting,
                HazelcastLeaseConfig.existingInstance().lockNamePrefix(prefix).rowLockSlots(8).rowLockBlock(1).leaseTtl(longLeaseTtl()).build())) {
            for (int round = 0; round < 5; round++) {
                assertThat(a.release(a.acquire(rows(ids)))).as("round %d", round).hasSize(8);
            }
            assertThat(a.release(a.acquire(new LeaseRequest(List.of("slot-3"), owner(), longLeaseTtl())))).hasSize(1);
            assertThat(a.release(a.acquire(new LeaseRequest(List.of("slot-3"), owner(), longLeaseTtl())))).hasSize(1);
        }
        Map<String, Integer> rowSlotFetches = new TreeMap<>();
        fetches.forEach((name, count) -> {
            if (name.contains(HazelcastLeaseManager.ROW_SLOT_INFIX)) {
                rowSlotFetches.put(name, count.get());
            }
        });
        assertThat(rowSlotFetches).as("fetches of each row lock slot's proxy over 5 rounds of 8 rows").hasSize(8)
                .allSatisfy((name, count) -> assertThat(count).as(name).isEqualTo(1));
        assertThat(fetches.get(prefix + "slot-3")).as("a partition key's lock over two acquires").hasValue(1);
    }

    @Test
    void keysOtherThanRowsKeepLocksOfTheirOwnAndRowSlotsAreNeverDestroyed() {
        String prefix = uniquePrefix();
        try (HazelcastLeaseManager a = slotted(0, prefix, 8); HazelcastLeaseManager b = slotted(1, prefix, 8)) {
            assertThat(a.acquire(new LeaseRequest(List.of("slot-1"), owner(), longLeaseTtl()))).hasSize(1);
            assertThat(b.acquire(new LeaseRequest(List.of("slot-9"), owner(), longLeaseTtl()))).as("partition slot keys do not share locks").hasSize(1);

            assertThat(a.releaseAndDestroy(a.acquire(rows(List.of(2L))))).hasSize(1);
            assertThat(b.acquire(rows(List.of(10L)))).as("row 10's slot, only released by releaseAndDestroy of row 2").hasSize(1);
        }
    }

    @Test
    void aManagerConfiguredWithOtherRowLockSlotsThanTheCpGroupRecordsIsRefused() {
        String prefix = uniquePrefix();
        try (HazelcastLeaseManager first = slotted(0, prefix, 8)) {
            assertThat(first.describe()).contains("8 row lock slots of 1 row");
            assertThatThrownBy(() -> slotted(1, prefix, 16)).isInstanceOf(LeaseManagerException.class)
                    .hasMessageContaining("lease rows under 8 row lock slots of 1 row").hasMessageContaining("configured with 16 row lock slots of 1 row")
                    .hasMessageContaining("rowLockSlots(8) and rowLockBlock(1)").hasMessageContaining(prefix + "%row-lock-slots");
            assertThatThrownBy(() -> blocked(1, prefix, 8, 16)).isInstanceOf(LeaseManagerException.class)
                    .hasMessageContaining("configured with 8 row lock slots of 16 rows").hasMessageContaining("rowLockBlock=1");
            assertThatThrownBy(() -> slotted(2, prefix, 0)).isInstanceOf(LeaseManagerException.class)
                    .hasMessageContaining("configured with a lock per row (rowLockSlots 0)");
            try (HazelcastLeaseManager same = slotted(2, prefix, 8)) {
                assertThat(same.acquire(rows(List.of(1L)))).hasSize(1);
            }
        }
    }

    @Test
    void rowsOfOneBlockAskedTogetherShareOneGrantAndWithoutALingerTheBlockIsFreedWithItsLastRow() {
        String prefix = uniquePrefix();
        try (HazelcastLeaseManager a = blocked(0, prefix, 8, 4, Duration.ZERO); HazelcastLeaseManager b = blocked(1, prefix, 8, 4)) {
            assertThat(a.rowBlock()).isEqualTo(4);
            List<Lease> granted = a.acquire(rows(List.of(4L, 5L, 6L, 8L)));
            assertThat(granted).hasSize(4);
            Map<Long, Long> fenceByBlock = new TreeMap<>();
            for (Lease lease : granted) {
                long id = RowKeys.entryIdOf(lease.key()).orElseThrow();
                Long other = fenceByBlock.putIfAbsent(id / 4, lease.fence());
                assertThat(other == null || other == lease.fence()).as("row %d shares its block's fence", id).isTrue();
            }
            assertThat(fenceByBlock).as("one grant per block: rows 4-6 in block 1, row 8 in block 2").hasSize(2);
            assertThat(fenceByBlock.get(1L)).isNotEqualTo(fenceByBlock.get(2L));

            assertThat(b.acquire(rows(List.of(7L)))).as("row 7: its block is a's until a's last row of it goes").isEmpty();
            Lease row4 = granted.stream().filter(l -> l.key().equals(RowKeys.leaseKey(4))).findFirst().orElseThrow();
            assertThat(a.release(List.of(row4))).hasSize(1);
            assertThat(b.acquire(rows(List.of(7L)))).as("rows 5 and 6 still hold block 1").isEmpty();
            assertThat(a.renew(granted.stream().filter(l -> l != row4).toList())).as("the other rows are still a's").hasSize(3);
            assertThat(a.renew(List.of(row4))).as("a released row is not renewed").isEmpty();

            assertThat(a.release(granted.stream().filter(l -> l != row4).toList())).hasSize(3);
            List<Lease> row7 = b.acquire(rows(List.of(7L)));
            assertThat(row7).hasSize(1);
            assertThat(row7.get(0).fence()).isGreaterThan(Math.max(fenceByBlock.get(1L), fenceByBlock.get(2L)));
        }
    }

    /** A lingering block: the holder's next rows of it cost no lock call; other managers wait for the linger. */
    @Test
    void aHeldBlockGrantsItsHoldersOtherRowsWithoutALockCallButNeverARowTwiceUnderOneFence() {
        String prefix = uniquePrefix();
        Map<String, AtomicInteger> lockCalls = new ConcurrentHashMap<>();
        HazelcastInstance counting = counting(cluster.members.get(0), new ConcurrentHashMap<>(), lockCalls);
        try (HazelcastLeaseManager a = HazelcastLeaseManager.using(counting, blockConfig(prefix, 8, 4).rowLockLinger(Duration.ofSeconds(10)).build());
             HazelcastLeaseManager b = blocked(1, prefix, 8, 4)) {
            List<Lease> first = a.acquire(rows(List.of(4L, 5L)));
            assertThat(first).hasSize(2);
            long fence = first.get(0).fence();
            assertThat(a.release(first)).hasSize(2);
            assertThat(counts(lockCalls)).as("a tryLock, and no unlock at the release of the block's last row")
                    .isEqualTo(Map.of("tryLockAndGetFence", 1));
            assertThat(b.acquire(rows(List.of(7L)))).as("block 1 lingers with a").isEmpty();

            List<Lease> next = a.acquire(rows(List.of(5L, 6L, 7L)));

            assertThat(next.stream().map(Lease::key)).as("rows 6 and 7 from the held block; row 5 was granted under its fence already")
                    .containsExactlyInAnyOrder(RowKeys.leaseKey(6), RowKeys.leaseKey(7));
            assertThat(next).allSatisfy(lease -> assertThat(lease.fence()).isEqualTo(fence));
            assertThat(counts(lockCalls)).as("no lock call for them").isEqualTo(Map.of("tryLockAndGetFence", 1));
            assertThat(a.renew(next)).as("one getFence renews both").hasSize(2);
            assertThat(counts(lockCalls)).isEqualTo(Map.of("tryLockAndGetFence", 1, "getFence", 1));
            assertThat(a.release(next)).hasSize(2);
        }
        assertThat(counts(lockCalls)).as("close unlocks the lingering block").containsEntry("unlock", 1);
    }

    @Test
    void aReleasedBlockIsUnlockedWhenItsLingerEndsAndARetriedRowWaitsForTheBlocksNextFence() {
        String prefix = uniquePrefix();
        try (HazelcastLeaseManager a = HazelcastLeaseManager.using(cluster.members.get(0),
                blockConfig(prefix, 8, 4).rowLockLinger(Duration.ofMillis(300)).build());
             HazelcastLeaseManager b = blocked(1, prefix, 8, 4)) {
            Lease row4 = a.acquire(rows(List.of(4L))).get(0);
            assertThat(a.release(List.of(row4))).hasSize(1);
            assertThat(a.acquire(rows(List.of(4L)))).as("row 4 again while its block lingers: never twice under one fence").isEmpty();

            List<Lease> row7 = new ArrayList<>();
            await().atMost(Duration.ofSeconds(5)).until(() -> row7.addAll(b.acquire(rows(List.of(7L)))));
            assertThat(row7.get(0).fence()).isGreaterThan(row4.fence());
            assertThat(b.release(row7)).hasSize(1);

            List<Lease> again = new ArrayList<>();
            await().atMost(Duration.ofSeconds(5)).until(() -> again.addAll(a.acquire(rows(List.of(4L)))));
            assertThat(again.get(0).fence()).as("row 4's next grant").isGreaterThan(row7.get(0).fence());
        }
    }

    @Test
    void aManagerThatKnowsItsRankLingersOnlyTheBlocksOfItsOwnStripe() {
        String prefix = uniquePrefix();
        try (HazelcastLeaseManager a = HazelcastLeaseManager.using(cluster.members.get(0),
                rankedBlockConfig(prefix, 8, 4).rowLockLinger(Duration.ofSeconds(10)).build());
             HazelcastLeaseManager b = HazelcastLeaseManager.using(cluster.members.get(1), rankedBlockConfig(prefix, 8, 4).build())) {
            await().untilAsserted(() -> assertThat(ranks(a, b)).containsExactlyInAnyOrder(new PeerRank(0, 2), new PeerRank(1, 2)));
            int rank = a.peerRank().orElseThrow().rank();
            long own = 4L * rank; // block k (rows 4k..4k+3) is in stripe k mod 2
            long helped = 4L * (1 - rank);
            List<Lease> held = a.acquire(rows(List.of(own, helped)));
            assertThat(held).hasSize(2);

            assertThat(a.release(held)).hasSize(2);

            assertThat(b.acquire(rows(List.of(helped + 1)))).as("a block a helped with goes back with its last row").hasSize(1);
            assertThat(b.acquire(rows(List.of(own + 1)))).as("a's own block lingers").isEmpty();
        }
    }

    /**
     * A held block grants more rows only while the call that last found it held was sent less than
     * half a ttl ago, and those leases count their ttl from that call: a renewal's getFence
     * re-confirms it; an idle block found too long ago is locked afresh.
     */
    @Test
    void aHeldBlockGrantsMoreRowsOnlyWithinHalfATtlOfTheCallThatLastFoundItHeld() {
        String prefix = uniquePrefix();
        MutableClock clock = new MutableClock(Instant.now());
        try (HazelcastLeaseManager a = HazelcastLeaseManager.using(cluster.members.get(0),
                blockConfig(prefix, 8, 4).rowLockLinger(Duration.ofSeconds(10)).clock(clock).build())) {
            Instant lockedAt = clock.instant();
            Lease row4 = a.acquire(rows(List.of(4L))).get(0);
            clock.advance(Duration.ofMillis(2_000));
            Lease row5 = a.acquire(rows(List.of(5L))).get(0);
            assertThat(row5.fence()).isEqualTo(row4.fence());
            assertThat(row5.grantedAt()).as("its ttl counts from the tryLock").isEqualTo(lockedAt);

            clock.advance(Duration.ofMillis(2_600)); // 4.6 s after the tryLock: past half the 9 s ttl
            assertThat(a.acquire(rows(List.of(6L)))).as("held for rows 4 and 5, but confirmed too long ago").isEmpty();
            assertThat(a.renew(List.of(row4, row5))).hasSize(2);
            Lease row6 = a.acquire(rows(List.of(6L))).get(0);
            assertThat(row6.fence()).isEqualTo(row4.fence());
            assertThat(row6.grantedAt()).as("from the renewal's getFence").isEqualTo(clock.instant());

            assertThat(a.release(List.of(row4, row5, row6))).hasSize(3);
            clock.advance(Duration.ofMillis(4_600));
            Lease row7 = a.acquire(rows(List.of(7L))).get(0);
            assertThat(row7.fence()).as("an idle block found too long ago: unlocked and locked again").isGreaterThan(row4.fence());
            assertThat(row7.grantedAt()).isEqualTo(clock.instant());
        }
    }

    @Test
    void aLimitedRequestGrantsExactlyItsLimitAcrossBlocksInRequestOrder() {
        try (HazelcastLeaseManager a = blocked(0, uniquePrefix(), 64, 4)) {
            List<Lease> granted = a.acquire(rows(LongStream.range(0, 20).boxed().toList()).limitedTo(10));
            assertThat(granted.stream().map(Lease::key)).as("blocks 0 and 1 whole, then two rows of block 2")
                    .containsExactlyInAnyOrderElementsOf(LongStream.range(0, 10).mapToObj(RowKeys::leaseKey).toList());
            assertThat(granted.stream().map(Lease::fence).distinct()).as("one grant per block").hasSize(3);
            assertThat(a.release(granted)).hasSize(10);
        }
    }

    @Test
    void aLimitedRequestWhoseFirstBlockIsTakenFillsItsLimitFromTheNextBlocks() {
        String prefix = uniquePrefix();
        try (HazelcastLeaseManager a = blocked(0, prefix, 64, 4); HazelcastLeaseManager b = blocked(1, prefix, 64, 4)) {
            assertThat(b.acquire(rows(List.of(0L)))).hasSize(1);

            List<Lease> granted = a.acquire(rows(LongStream.range(0, 12).boxed().toList()).limitedTo(6));

            assertThat(granted.stream().map(lease -> RowKeys.entryIdOf(lease.key()).orElseThrow()))
                    .as("block 0 refused: block 1 whole in round one, then the first rows of block 2 in a second round")
                    .containsExactlyInAnyOrder(4L, 5L, 6L, 7L, 8L, 9L);
            assertThat(b.acquire(rows(List.of(10L)))).as("rows 10 and 11 given up, but their block is a's").isEmpty();
        }
    }

    @Test
    void rowLockSlotsOutsideItsRangeAreRefusedByTheBuilder() {
        assertThatThrownBy(() -> HazelcastLeaseConfig.existingInstance().rowLockSlots(65_537).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("rowLockSlots must be in [0, 65536]");
        assertThatThrownBy(() -> HazelcastLeaseConfig.existingInstance().rowLockSlots(-1).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("was -1");
        assertThatThrownBy(() -> HazelcastLeaseConfig.existingInstance().rowLockBlock(0).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("rowLockBlock must be in [1, 1024]").hasMessageContaining("was 0");
        assertThatThrownBy(() -> HazelcastLeaseConfig.existingInstance().rowLockBlock(1_025).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("was 1025");
        assertThat(HazelcastLeaseConfig.existingInstance().rowLockSlots(0).rowLockBlock(16).build().rowLockBlock())
                .as("a lock per row has no blocks").isEqualTo(1);
    }

    @Test
    void liveManagersOfOnePrefixHoldDistinctPeerRanksAndRerankWhenOneCloses() {
        String prefix = uniquePrefix();
        try (HazelcastLeaseManager a = slotted(0, prefix, 8); HazelcastLeaseManager b = slotted(1, prefix, 8);
             HazelcastLeaseManager other = slotted(2, uniquePrefix(), 8); HazelcastLeaseManager c = slotted(2, prefix, 8)) {
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
        try (HazelcastLeaseManager on = slotted(0, prefix, 8);
             HazelcastLeaseManager off = HazelcastLeaseManager.using(cluster.members.get(1), HazelcastLeaseConfig.existingInstance()
                     .lockNamePrefix(prefix).rowLockSlots(8).rowLockBlock(1).peerRanks(false).leaseTtl(longLeaseTtl()).build())) {
            assertThat(off.peerRank()).isEmpty();
            assertThat(on.peerRank()).contains(new PeerRank(0, 1));
        }
    }

    private static List<PeerRank> ranks(HazelcastLeaseManager... managers) {
        return Arrays.stream(managers).map(HazelcastLeaseManager::peerRank).flatMap(Optional::stream).toList();
    }

    /** A manager with {@code slots} row lock slots of one row each. */
    private HazelcastLeaseManager slotted(int member, String prefix, int slots) {
        return HazelcastLeaseManager.using(cluster.members.get(member), rankedBlockConfig(prefix, slots, 1).build());
    }

    private HazelcastLeaseManager blocked(int member, String prefix, int slots, int block) {
        return HazelcastLeaseManager.using(cluster.members.get(member), blockConfig(prefix, slots, block).build());
    }

    private HazelcastLeaseManager blocked(int member, String prefix, int slots, int block, Duration linger) {
        return HazelcastLeaseManager.using(cluster.members.get(member), blockConfig(prefix, slots, block).rowLockLinger(linger).build());
    }

    /** Without peer ranks: a manager that knows its rank lingers only the blocks of its stripe, which would vary with the test's timing. */
    private HazelcastLeaseConfig.Builder blockConfig(String prefix, int slots, int block) {
        return rankedBlockConfig(prefix, slots, block).peerRanks(false);
    }

    private HazelcastLeaseConfig.Builder rankedBlockConfig(String prefix, int slots, int block) {
        return HazelcastLeaseConfig.existingInstance().lockNamePrefix(prefix).rowLockSlots(slots).rowLockBlock(block).leaseTtl(longLeaseTtl());
    }

    private static Map<String, Integer> counts(Map<String, AtomicInteger> calls) {
        Map<String, Integer> counts = new TreeMap<>();
        calls.forEach((name, count) -> counts.put(name, count.get()));
        return counts;
    }

    private LeaseRequest rows(List<Long> ids) {
        return new LeaseRequest(ids.stream().map(RowKeys::leaseKey).toList(), owner(), longLeaseTtl());
    }

    private static String uniquePrefix() {
        return "slots-" + UUID.randomUUID() + "/";
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
