package dev.leasebox.jdbc;

import dev.leasebox.claim.ClaimMode;
import dev.leasebox.claim.partition.PartitionedOutboxClaimStore;
import dev.leasebox.claim.partition.SlotGrant;
import dev.leasebox.claim.partition.SlotRegistration;
import dev.leasebox.jdbc.lease.JdbcSlotStore;
import dev.leasebox.jdbc.lease.JdbcWorkerGroup;
import dev.leasebox.jdbc.store.JdbcOutboxStore;
import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseRequest;
import dev.leasebox.lease.inmemory.InMemoryLeaseManager;
import dev.leasebox.outbox.ClaimRequest;
import dev.leasebox.outbox.ClaimSelection;
import dev.leasebox.outbox.Completion;
import dev.leasebox.outbox.EmissionError;
import dev.leasebox.outbox.EmissionResult;
import dev.leasebox.outbox.OutboxClaim;
import dev.leasebox.outbox.OutboxEntry;
import dev.leasebox.outbox.OutboxMessage;
import dev.leasebox.testkit.MutableClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Partition leases, run against each database by a subclass (of {@link LeanPartitionClaimsScenarios},
 * which adds the lean claims'): the slot column, slot-grant registration, recorded claims in slots
 * (tokens, stale grants, ordering) and the keeper's rebalancing. The coordinator here is the in-memory
 * lease manager (pure logic); the real backends drive the same code in the worker processes of
 * leasebox-cli's PartitionedWorkersIT.
 */
abstract class PartitionLeasesScenarios {

    protected static final Duration TTL = Duration.ofSeconds(30);

    /** The data source of the class's database (a pool of at least 8). */
    protected abstract DataSource dataSource();

    /** The class's own schema (PostgreSQL) or database (MariaDB). */
    protected abstract String schema();

    protected abstract DatabaseKind kind();

    protected final MutableClock clock = MutableClock.startingAt2026();
    protected TableName table;
    protected JdbcOutboxStore rows;
    protected JdbcSlotStore slots;
    protected final List<AutoCloseable> closing = new ArrayList<>();

    @BeforeEach
    void freshTable() {
        table = new TableName(schema(), "parts_" + System.nanoTime());
        new LeaseboxSchema(kind(), table, 16).applyAll(dataSource());
        rows = JdbcOutboxStore.builder(dataSource()).table(table).clock(clock).open();
        slots = JdbcSlotStore.open(dataSource(), rows, clock);
    }

    @AfterEach
    void closeAll() throws Exception {
        for (int i = closing.size() - 1; i >= 0; i--) {
            closing.get(i).close();
        }
    }

    protected OutboxEntry enqueue(String key, int n) {
        return rows.enqueue(OutboxMessage.of("t", (key + "#" + n).getBytes(StandardCharsets.UTF_8))
                .withIdempotencyKey(key + "#" + n + "#" + System.nanoTime()).withPartitionKey(key));
    }

    private int slotInDatabase(long id) throws Exception {
        try (Connection c = dataSource().getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT lease_slot FROM " + table + " WHERE id = " + id)) {
            rs.next();
            return rs.getInt(1);
        }
    }

    protected SlotGrant grant(InMemoryLeaseManager manager, int slot, String owner) {
        List<Lease> leases = manager.acquire(new LeaseRequest(List.of(SlotGrant.leaseKey(slot)), owner, TTL));
        assertThat(leases).hasSize(1);
        return new SlotGrant(slot, leases.get(0));
    }

    protected static ClaimRequest request(String owner, int batch) {
        return new ClaimRequest(owner, batch, TTL);
    }

    @Test
    void theDatabaseComputesTheSameSlotAsJavaForKeysAndForIds() throws Exception {
        assertThat(slots.slotCount()).isEqualTo(16);
        for (int i = 0; i < 200; i++) {
            String key = i % 3 == 0 ? null : "aggregate-" + i + (i % 7 == 0 ? "-ünïcödé" : "");
            OutboxEntry e = key == null
                    ? rows.enqueue(OutboxMessage.of("t", new byte[] {1}).withIdempotencyKey("k" + i))
                    : rows.enqueue(OutboxMessage.of("t", new byte[] {1}).withIdempotencyKey("k" + i).withPartitionKey(key));
            assertThat(slotInDatabase(e.id())).as("slot of %s / %s", key, e.id())
                    .isEqualTo(LeaseSlots.slotOf(key, e.id(), 16));
        }
    }

    @Test
    void aGrantIsRecordedOnlyAboveTheSlotsHighWaterMark() {
        InMemoryLeaseManager manager = new InMemoryLeaseManager(clock);
        SlotGrant first = grant(manager, 3, "a");
        assertThat(slots.registerGrants(List.of(first)).accepted()).containsExactly(first);
        // the same fence again (e.g. a coordinator that lost its counter hands it out twice) is refused
        SlotRegistration again = slots.registerGrants(List.of(first));
        assertThat(again.accepted()).isEmpty();
        assertThat(again.refusedHighWater()).containsEntry(3, first.fence());
        assertThat(slots.highestSlotFence()).isEqualTo(first.fence());
    }

    @Test
    void claimsOnlyRowsOfHeldSlotsWithTheGrantsFenceAsToken() throws Exception {
        InMemoryLeaseManager manager = new InMemoryLeaseManager(clock);
        List<OutboxEntry> entries = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
            entries.add(enqueue("key-" + i, 0));
        }
        SlotGrant g = grant(manager, 5, "a");
        slots.registerGrants(List.of(g));
        List<OutboxClaim> claimed = slots.claimInSlots(ClaimSelection.ELIGIBLE, request("a", 100), List.of(g), false);
        Set<Long> inSlot5 = new HashSet<>();
        for (OutboxEntry e : entries) {
            if (slotInDatabase(e.id()) == 5) {
                inSlot5.add(e.id());
            }
        }
        assertThat(inSlot5).isNotEmpty();
        assertThat(claimed).extracting(OutboxClaim::entryId).containsExactlyInAnyOrderElementsOf(inSlot5);
        assertThat(claimed).allSatisfy(c -> assertThat(c.token()).isEqualTo(g.fence()));
        // claimed rows are not claimed again while their claims are unexpired
        assertThat(slots.claimInSlots(ClaimSelection.ELIGIBLE, request("a", 100), List.of(g), false)).isEmpty();
    }

    @Test
    void aRetryUnderTheSameGrantGetsAHigherTokenAndTheOldClaimIsRefused() {
        InMemoryLeaseManager manager = new InMemoryLeaseManager(clock);
        OutboxEntry e = enqueue("retry", 0);
        int slot = LeaseSlots.slotOf("retry", e.id(), 16);
        SlotGrant g = grant(manager, slot, "a");
        slots.registerGrants(List.of(g));
        OutboxClaim first = slots.claimInSlots(ClaimSelection.ELIGIBLE, request("a", 10), List.of(g), false).get(0);
        assertThat(rows.complete(first, new Completion.Failed(EmissionError.retryable("x", "503"),
                Optional.of(clock.instant()))).isCompleted()).isTrue();
        OutboxClaim second = slots.claimInSlots(ClaimSelection.ELIGIBLE, request("a", 10), List.of(g), false).get(0);
        assertThat(second.token()).isEqualTo(first.token() + 1);
        assertThat(rows.complete(first, new Completion.Delivered(new EmissionResult(clock.instant(), "late"))).isCompleted())
                .as("the first claim's token no longer matches").isFalse();
        assertThat(rows.complete(second, new Completion.Delivered(new EmissionResult(clock.instant(), "ok"))).isCompleted())
                .isTrue();
    }

    @Test
    void anOlderGrantClaimsNothingOnceANewerOneIsRegistered() {
        InMemoryLeaseManager manager = new InMemoryLeaseManager(clock);
        OutboxEntry e = enqueue("handover", 0);
        int slot = LeaseSlots.slotOf("handover", e.id(), 16);
        SlotGrant old = grant(manager, slot, "a");
        slots.registerGrants(List.of(old));
        OutboxClaim oldClaim = slots.claimInSlots(ClaimSelection.ELIGIBLE, request("a", 10), List.of(old), false).get(0);

        clock.advance(TTL.plusSeconds(1)); // a's slot lease and its row claim expire (a is paused)
        SlotGrant newer = grant(manager, slot, "b");
        assertThat(newer.fence()).isGreaterThan(old.fence());
        assertThat(slots.registerGrants(List.of(newer)).accepted()).containsExactly(newer);

        assertThat(slots.claimInSlots(ClaimSelection.ELIGIBLE, request("a", 10), List.of(old), false))
                .as("the stale grant claims nothing").isEmpty();
        OutboxClaim reclaimed = slots.claimInSlots(ClaimSelection.ELIGIBLE, request("b", 10), List.of(newer), false).get(0);
        assertThat(reclaimed.token()).isGreaterThan(oldClaim.token()).isEqualTo(newer.fence());
        assertThat(reclaimed.entry().claimAttemptCount()).isEqualTo(2);
        assertThat(rows.complete(oldClaim, new Completion.Delivered(new EmissionResult(clock.instant(), "stale"))).isCompleted())
                .as("the zombie's completion is refused").isFalse();
        assertThat(rows.complete(reclaimed, new Completion.Delivered(new EmissionResult(clock.instant(), "ok"))).isCompleted())
                .isTrue();
    }

    @Test
    void orderedModeClaimsOneOpenEntryPerKeyAndAFailingHeadHoldsBackOnlyItsKey() {
        InMemoryLeaseManager manager = new InMemoryLeaseManager(clock);
        // two keys in (almost surely) different slots; hold every slot
        List<OutboxEntry> a = new ArrayList<>();
        List<OutboxEntry> b = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            a.add(enqueue("A", i));
            b.add(enqueue("B", i));
        }
        List<SlotGrant> all = new ArrayList<>();
        for (int s = 0; s < 16; s++) {
            all.add(grant(manager, s, "w"));
        }
        slots.registerGrants(all);

        List<OutboxClaim> first = slots.claimInSlots(ClaimSelection.ELIGIBLE, request("w", 100), all, true);
        assertThat(first).extracting(OutboxClaim::entryId).containsExactly(a.get(0).id(), b.get(0).id());
        Map<Long, OutboxClaim> byId = new HashMap<>();
        first.forEach(c -> byId.put(c.entryId(), c));

        // A's head fails (retry later); B's head is delivered
        rows.complete(byId.get(a.get(0).id()), new Completion.Failed(EmissionError.retryable("x", "503"),
                Optional.of(clock.instant().plusSeconds(60))));
        rows.complete(byId.get(b.get(0).id()), new Completion.Delivered(new EmissionResult(clock.instant(), "ok")));

        List<OutboxClaim> second = slots.claimInSlots(ClaimSelection.ELIGIBLE, request("w", 100), all, true);
        assertThat(second).as("B moves on; A waits for its head").extracting(OutboxClaim::entryId)
                .containsExactly(b.get(1).id());

        // without ordering, A's later entries would have been claimable
        rows.complete(second.get(0), new Completion.Released("test"));
        assertThat(slots.claimInSlots(ClaimSelection.ELIGIBLE, request("w", 100), all, false))
                .extracting(OutboxClaim::entryId).contains(a.get(1).id(), a.get(2).id());
    }

    @Test
    void keepersShareTheSlotsFairlyAndRebalanceWhenOneLeavesOrDies() {
        InMemoryLeaseManager manager = new InMemoryLeaseManager(clock);
        JdbcWorkerGroup group = new JdbcWorkerGroup(dataSource(), rows, clock);
        Duration tick = Duration.ofSeconds(10);
        PartitionedOutboxClaimStore w1 = open("w1", manager, group, tick);
        PartitionedOutboxClaimStore w2 = open("w2", manager, group, tick);
        PartitionedOutboxClaimStore w3 = open("w3", manager, group, tick);
        List<PartitionedOutboxClaimStore> all = List.of(w1, w2, w3);
        // two rounds of ticks: everyone sees everyone, surplus released, shares acquired
        tickAll(all);
        tickAll(all);
        assertExactlyOneHolderPerSlot(all);
        assertThat(all).allSatisfy(w -> assertThat(w.keeper().heldSlots().size()).isBetween(5, 6));

        // w3 leaves gracefully: its slots move at once (no ttl to wait); two rounds, as a worker
        // releases a slot that is no longer its share on its own tick, and the new owner takes it on its next
        w3.close();
        tickAll(List.of(w1, w2));
        tickAll(List.of(w1, w2));
        assertExactlyOneHolderPerSlot(List.of(w1, w2));
        assertThat(w1.keeper().heldSlots()).hasSize(8);

        // w2 dies (stops ticking): after its heartbeat and slot leases expire, w1 takes everything
        clock.advance(TTL.plusSeconds(1));
        tickAll(List.of(w1));
        assertThat(w1.keeper().heldSlots()).hasSize(16);
        assertThat(w1.keeper().members()).containsExactly("w1");
    }

    private PartitionedOutboxClaimStore open(String owner, InMemoryLeaseManager manager, JdbcWorkerGroup group, Duration tick) {
        PartitionedOutboxClaimStore store = PartitionedOutboxClaimStore.open(rows, slots, manager, group, owner, TTL, tick,
                false, ClaimMode.RECORDED, clock);
        closing.add(store);
        return store;
    }

    protected static void tickAll(List<PartitionedOutboxClaimStore> workers) {
        workers.forEach(w -> w.keeper().tick());
    }

    protected static void assertExactlyOneHolderPerSlot(List<PartitionedOutboxClaimStore> workers) {
        Map<Integer, Integer> holders = new HashMap<>();
        workers.forEach(w -> w.keeper().heldSlots().forEach(s -> holders.merge(s, 1, Integer::sum)));
        assertThat(holders).hasSize(16);
        assertThat(holders.values()).containsOnly(1);
    }

    @Test
    void aMissingV3NamesTheScript() {
        TableName v2only = new TableName(schema(), "v2only_" + System.nanoTime());
        new LeaseboxSchema(kind(), v2only).apply(dataSource(), 1, 2);
        JdbcOutboxStore store = JdbcOutboxStore.builder(dataSource()).table(v2only).clock(clock).open();
        assertThatThrownBy(() -> JdbcSlotStore.open(dataSource(), store, clock))
                .hasMessageContaining("V3__add_lease_slots.sql").hasMessageContaining("--granularity row");
    }
}
