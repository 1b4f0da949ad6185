package dev.leasebox.jdbc;

import dev.leasebox.claim.ClaimMode;
import dev.leasebox.claim.partition.PartitionedOutboxClaimStore;
import dev.leasebox.claim.partition.SlotGrant;
import dev.leasebox.claim.partition.SlotOutboxStore;
import dev.leasebox.claim.partition.SlotRegistration;
import dev.leasebox.jdbc.lease.JdbcWorkerGroup;
import dev.leasebox.lease.inmemory.InMemoryLeaseManager;
import dev.leasebox.outbox.ClaimRequest;
import dev.leasebox.outbox.ClaimSelection;
import dev.leasebox.outbox.Completion;
import dev.leasebox.outbox.CompletionOutcome;
import dev.leasebox.outbox.EmissionError;
import dev.leasebox.outbox.EmissionResult;
import dev.leasebox.outbox.OutboxClaim;
import dev.leasebox.outbox.OutboxEntry;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
/**
 * Lean partition claims, run against each database by a subclass with the scenarios of
 * {@link PartitionLeasesScenarios}: nothing written before the completion, fence floors and marks,
 * rows in flight across rebalancing, and completions refused once a newer grant is registered.
 */
abstract class LeanPartitionClaimsScenarios extends PartitionLeasesScenarios {

    @Test
    void leanClaimsWriteNothingBeforeTheCompletionWhichCarriesTheSlotFence() {
        InMemoryLeaseManager manager = new InMemoryLeaseManager(clock);
        PartitionedOutboxClaimStore lean = PartitionedOutboxClaimStore.open(rows, slots, manager,
                new JdbcWorkerGroup(dataSource(), rows, clock), "w", TTL, Duration.ofSeconds(10), false, ClaimMode.LEAN, clock);
        closing.add(lean);
        OutboxEntry e = enqueue("lean", 0);
        List<OutboxClaim> claims = lean.claim(ClaimSelection.ELIGIBLE, request("w", 10));
        assertThat(claims).extracting(OutboxClaim::entryId).containsExactly(e.id());
        OutboxClaim claim = claims.get(0);
        long fence = lean.keeper().validGrant(LeaseSlots.slotOf("lean", e.id(), 16)).orElseThrow().fence();
        assertThat(claim.token()).isEqualTo(fence);
        OutboxEntry untouched = rows.find(e.id()).orElseThrow();
        assertThat(untouched.claimToken()).isEmpty();
        assertThat(untouched.fenceHighWater()).isZero();
        assertThat(lean.claim(ClaimSelection.ELIGIBLE, request("w", 10))).as("in flight: not read again").isEmpty();

        // a retry is never handed out under the fence its first emission carried: the slot is granted again
        assertThat(lean.complete(claim, new Completion.Failed(EmissionError.retryable("x", "503"),
                Optional.of(clock.instant()))).isCompleted()).isTrue();
        assertThat(lean.claim(ClaimSelection.ELIGIBLE, request("w", 10))).as("not again under the same grant").isEmpty();
        lean.keeper().tick();
        OutboxClaim retry = lean.claim(ClaimSelection.ELIGIBLE, request("w", 10)).get(0);
        assertThat(retry.token()).isGreaterThan(fence);
        assertThat(lean.renewClaims(List.of(retry), TTL)).hasSize(1);
        assertThat(lean.complete(retry, new Completion.Delivered(new EmissionResult(clock.instant(), "ok"))).isCompleted())
                .isTrue();
        OutboxEntry done = rows.find(e.id()).orElseThrow();
        assertThat(done.status()).isEqualTo(dev.leasebox.outbox.EmissionStatus.DELIVERED);
        assertThat(done.fenceHighWater()).isEqualTo(retry.token());
        assertThat(done.attemptCount()).isEqualTo(2);
    }

    @Test
    void aLeanRowRetriedUnderOneSlotLeaseIsNeverHandedOutTwiceUnderOneFence() {
        // one worker, its slot leases never lapse; every emission reaches the downstream, whose
        // acknowledgement is lost: each ends as a retryable failure, due at once
        InMemoryLeaseManager manager = new InMemoryLeaseManager(clock);
        PartitionedOutboxClaimStore lean = PartitionedOutboxClaimStore.open(rows, slots, manager,
                new JdbcWorkerGroup(dataSource(), rows, clock), "w", TTL, Duration.ofSeconds(10), false, ClaimMode.LEAN, clock);
        closing.add(lean);
        for (int i = 0; i < 20; i++) {
            enqueue("retry-" + i, 0);
        }
        java.util.Set<String> emitted = new java.util.HashSet<>();
        List<String> repeated = new ArrayList<>();
        for (int round = 0; round < 8; round++) {
            lean.keeper().tick();
            List<OutboxClaim> batch = lean.claim(ClaimSelection.ELIGIBLE, request("w", 100));
            for (OutboxClaim c : batch) {
                if (!emitted.add(c.entryId() + " under " + c.token())) {
                    repeated.add(c.entryId() + " under " + c.token());
                }
            }
            lean.completeAll(batch.stream().map(c -> new dev.leasebox.outbox.ClaimCompletion(c, new Completion.Failed(
                    EmissionError.retryable("ack-lost", "accepted, acknowledgement lost"), Optional.of(clock.instant()))))
                    .toList());
        }
        assertThat(repeated).as("entries emitted twice under one fence").isEmpty();
        assertThat(emitted).as("every entry was retried").hasSizeGreaterThan(40);
    }

    private void setHighWater(long id, long mark) throws Exception {
        try (Connection c = dataSource().getConnection(); Statement st = c.createStatement()) {
            st.executeUpdate("UPDATE " + table + " SET fence_high_water = " + mark + " WHERE id = " + id);
        }
    }

    @Test
    void aLeanWorkerStartsWithItsFenceFloorAboveEveryRowsHighWaterMark() throws Exception {
        // rows left by row-mode claims (another fence sequence) carry marks above every slot fence; lean
        // claims used to emit them under the lower slot fence, and every completion was refused, for ever
        List<OutboxEntry> entries = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            OutboxEntry e = enqueue("moved-" + i, 0);
            setHighWater(e.id(), 70 + i);
            entries.add(e);
        }
        InMemoryLeaseManager manager = new InMemoryLeaseManager(clock);
        PartitionedOutboxClaimStore lean = PartitionedOutboxClaimStore.open(rows, slots, manager,
                new JdbcWorkerGroup(dataSource(), rows, clock), "w", TTL, Duration.ofSeconds(10), false, ClaimMode.LEAN, clock);
        closing.add(lean);
        List<OutboxClaim> claims = lean.claim(ClaimSelection.ELIGIBLE, request("w", 100));
        assertThat(claims).hasSize(40);
        for (OutboxClaim claim : claims) {
            assertThat(claim.token()).as("entry %s is emitted under a fence above its mark", claim.entryId())
                    .isGreaterThan(claim.entry().fenceHighWater());
        }
        List<CompletionOutcome> outcomes = lean.completeAll(claims.stream().map(c -> new dev.leasebox.outbox.ClaimCompletion(c,
                new Completion.Delivered(new EmissionResult(clock.instant(), "ok")))).toList());
        assertThat(outcomes).allMatch(CompletionOutcome::isCompleted);
    }

    @Test
    void aLeanClaimSkipsARowMarkedAboveItsGrantAndTheSlotIsGrantedAgainAboveTheMark() throws Exception {
        InMemoryLeaseManager manager = new InMemoryLeaseManager(clock);
        PartitionedOutboxClaimStore lean = PartitionedOutboxClaimStore.open(rows, slots, manager,
                new JdbcWorkerGroup(dataSource(), rows, clock), "w", TTL, Duration.ofSeconds(10), false, ClaimMode.LEAN, clock);
        closing.add(lean);
        OutboxEntry marked = enqueue("marked", 0);
        int slot = LeaseSlots.slotOf("marked", marked.id(), 16);
        long grantFence = lean.keeper().validGrant(slot).orElseThrow().fence();
        // after the worker started, a writer on another fence sequence marked the row far above the grant
        setHighWater(marked.id(), grantFence + 1_000);

        assertThat(lean.claim(ClaimSelection.ELIGIBLE, request("w", 10)))
                .as("a row whose mark is above the grant's fence is never emitted under it").isEmpty();
        lean.keeper().tick();
        List<OutboxClaim> again = lean.claim(ClaimSelection.ELIGIBLE, request("w", 10));
        assertThat(again).extracting(OutboxClaim::entryId).containsExactly(marked.id());
        assertThat(again.get(0).token()).isGreaterThan(grantFence + 1_000);
        assertThat(lean.complete(again.get(0), new Completion.Delivered(new EmissionResult(clock.instant(), "ok")))
                .isCompleted()).isTrue();
    }

    @Test
    void aLeanWorkerKeepsASlotThatIsNoLongerItsShareUntilItsRowsInFlightAreDone() {
        InMemoryLeaseManager manager = new InMemoryLeaseManager(clock);
        JdbcWorkerGroup group = new JdbcWorkerGroup(dataSource(), rows, clock);
        PartitionedOutboxClaimStore w1 = PartitionedOutboxClaimStore.open(rows, slots, manager, group, "w1", TTL,
                Duration.ofSeconds(10), false, ClaimMode.LEAN, clock);
        closing.add(w1);
        for (int i = 0; i < 64; i++) {
            enqueue("k" + i, 0);
        }
        List<OutboxClaim> inFlight = w1.claim(ClaimSelection.ELIGIBLE, request("w1", 100));
        assertThat(inFlight).hasSize(64);
        assertThat(w1.keeper().heldSlots()).hasSize(16);

        PartitionedOutboxClaimStore w2 = PartitionedOutboxClaimStore.open(rows, slots, manager, group, "w2", TTL,
                Duration.ofSeconds(10), false, ClaimMode.LEAN, clock);
        closing.add(w2);
        tickAll(List.of(w1, w2));
        tickAll(List.of(w1, w2));
        // every slot has rows in flight at w1: none is released, none is offered to w1's new claims
        // beyond its share, and w2 cannot take its share yet
        assertThat(w1.keeper().heldSlots()).hasSize(16);
        assertThat(w1.keeper().validGrants()).hasSize(8);
        assertThat(w2.keeper().heldSlots()).isEmpty();
        assertThat(w1.renewClaims(inFlight, TTL)).as("the rows in flight stay held").hasSize(64);

        // once they are completed, the surplus goes, and w2 takes its share
        w1.completeAll(inFlight.stream().map(c -> new dev.leasebox.outbox.ClaimCompletion(c,
                new Completion.Delivered(new EmissionResult(clock.instant(), "ok")))).toList())
                .forEach(o -> assertThat(o.isCompleted()).isTrue());
        tickAll(List.of(w1, w2));
        tickAll(List.of(w1, w2));
        assertExactlyOneHolderPerSlot(List.of(w1, w2));
        assertThat(w2.keeper().heldSlots()).hasSize(8);
    }

    @Test
    void concurrentClaimLoopsOfOneLeanWorkerNeverReadTheSameRow() throws Exception {
        InMemoryLeaseManager manager = new InMemoryLeaseManager(clock);
        PartitionedOutboxClaimStore lean = PartitionedOutboxClaimStore.open(rows, slots, manager,
                new JdbcWorkerGroup(dataSource(), rows, clock), "w", TTL, Duration.ofSeconds(10), false, ClaimMode.LEAN, clock);
        closing.add(lean);
        for (int i = 0; i < 400; i++) {
            enqueue("k" + i, 0);
        }
        List<Long> claimed = java.util.Collections.synchronizedList(new ArrayList<>());
        java.util.concurrent.CountDownLatch start = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.ExecutorService loops = java.util.concurrent.Executors.newFixedThreadPool(8);
        List<java.util.concurrent.Future<?>> done = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            done.add(loops.submit(() -> {
                start.await();
                List<OutboxClaim> batch;
                do {
                    batch = lean.claim(ClaimSelection.ELIGIBLE, request("w", 7));
                    batch.forEach(c -> claimed.add(c.entryId()));
                } while (!batch.isEmpty());
                return null;
            }));
        }
        start.countDown();
        for (java.util.concurrent.Future<?> f : done) {
            f.get(60, java.util.concurrent.TimeUnit.SECONDS);
        }
        loops.shutdown();
        assertThat(claimed).hasSize(400).doesNotHaveDuplicates();
        assertThat(lean.inFlightCount()).isEqualTo(400);
    }

    @Test
    void aLeanClaimTheDrainGaveUpOnIsReadAgainOnceItsDeadlineIsALeaseTtlPast() {
        // found by the chaos harness (PartitionChaosIT): a drain abandons a claim whose local deadline passed
        // (a starved renewal) and writes nothing for it; the row must not stay in flight forever
        InMemoryLeaseManager manager = new InMemoryLeaseManager(clock);
        PartitionedOutboxClaimStore lean = PartitionedOutboxClaimStore.open(rows, slots, manager,
                new JdbcWorkerGroup(dataSource(), rows, clock), "w", TTL, Duration.ofSeconds(10), true, ClaimMode.LEAN, clock);
        closing.add(lean);
        OutboxEntry head = enqueue("abandoned", 0);
        enqueue("abandoned", 1);
        OutboxClaim claim = lean.claim(ClaimSelection.ELIGIBLE, request("w", 10)).get(0);
        assertThat(claim.entryId()).isEqualTo(head.id());

        clock.advance(TTL.minusSeconds(5));
        lean.keeper().tick(); // the slot lease is renewed; the claim is not (the drain's renewal never ran)
        clock.advance(Duration.ofSeconds(10)); // past the claim's deadline: the drain abandons it
        assertThat(lean.claim(ClaimSelection.ELIGIBLE, request("w", 10))).as("within a ttl of the deadline").isEmpty();
        clock.advance(TTL.minusSeconds(15));
        lean.keeper().tick(); // the slot lease stays held by the same grant throughout
        clock.advance(Duration.ofSeconds(15)); // the claim's deadline is more than a ttl past

        assertThat(lean.claim(ClaimSelection.ELIGIBLE, request("w", 10)))
                .as("never again under the grant the abandoned emission carried").isEmpty();
        lean.keeper().tick();
        List<OutboxClaim> again = lean.claim(ClaimSelection.ELIGIBLE, request("w", 10));
        assertThat(again).extracting(OutboxClaim::entryId).as("the head is read again, not stuck in flight (ordered: "
                + "its key would be stuck too)").containsExactly(head.id());
        assertThat(again.get(0).token()).as("a newer grant: a higher token").isGreaterThan(claim.token());
        assertThat(lean.complete(again.get(0), new Completion.Delivered(new EmissionResult(clock.instant(), "ok")))
                .isCompleted()).isTrue();
        assertThat(lean.complete(claim, new Completion.Delivered(new EmissionResult(clock.instant(), "ok")))
                .isCompleted()).as("the abandoned claim writes nothing").isFalse();
    }

    @Test
    void aLeanReadRacingARebalanceNeverReturnsRowsOfASlotTheKeeperReleased() throws Exception {
        // found by the chaos harness (PartitionChaosIT): the keeper released a slot between a claim loop's
        // validGrants() and its in-flight mark, so the slot's next holder read the same rows while this worker
        // emitted them, with no lease expired
        InMemoryLeaseManager manager = new InMemoryLeaseManager(clock);
        JdbcWorkerGroup group = new JdbcWorkerGroup(dataSource(), rows, clock);
        java.util.concurrent.CountDownLatch reading = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch proceed = new java.util.concurrent.CountDownLatch(1);
        SlotOutboxStore slowReads = new SlotOutboxStore() {
            public int slotCount() { return slots.slotCount(); }
            public long highestSlotFence() { return slots.highestSlotFence(); }
            public SlotRegistration registerGrants(List<SlotGrant> grants) { return slots.registerGrants(grants); }
            public List<OutboxClaim> claimInSlots(ClaimSelection s, ClaimRequest r, List<SlotGrant> g, boolean o) {
                return slots.claimInSlots(s, r, g, o);
            }
            public List<CompletionOutcome> completeInSlots(List<SlotCompletion> c) { return slots.completeInSlots(c); }
            public List<SlottedEntry> selectInSlots(ClaimSelection s, int limit, List<SlotGrant> g, boolean o,
                                                    java.util.Collection<Long> inFlight) {
                List<SlottedEntry> read = slots.selectInSlots(s, limit, g, o, inFlight);
                reading.countDown();
                try {
                    proceed.await(); // the read returned; its rows are not marked in flight yet
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return read;
            }
        };
        PartitionedOutboxClaimStore w1 = PartitionedOutboxClaimStore.open(rows, slowReads, manager, group, "w1", TTL,
                Duration.ofSeconds(10), false, ClaimMode.LEAN, clock);
        closing.add(w1);
        for (int i = 0; i < 64; i++) {
            enqueue("k" + i, 0);
        }
        java.util.concurrent.ExecutorService threads = java.util.concurrent.Executors.newFixedThreadPool(2);
        try {
            java.util.concurrent.Future<List<OutboxClaim>> claim = threads.submit(
                    () -> w1.claim(ClaimSelection.ELIGIBLE, request("w1", 100)));
            assertThat(reading.await(30, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
            PartitionedOutboxClaimStore w2 = PartitionedOutboxClaimStore.open(rows, slots, manager, group, "w2", TTL,
                    Duration.ofSeconds(10), false, ClaimMode.LEAN, clock);
            closing.add(w2);
            Thread[] ticker = new Thread[1];
            java.util.concurrent.Future<?> tick = threads.submit(() -> {
                ticker[0] = Thread.currentThread();
                w1.keeper().tick(); // w2 joined: half of w1's slots are no longer its share
            });
            // the tick either ran through (releasing slots under the read) or waits for the read to finish
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> tick.isDone()
                    || (ticker[0] != null && ticker[0].getState() == Thread.State.BLOCKED));
            proceed.countDown();
            List<OutboxClaim> claims = claim.get(30, java.util.concurrent.TimeUnit.SECONDS);
            tick.get(30, java.util.concurrent.TimeUnit.SECONDS);

            assertThat(claims).hasSize(64);
            assertThat(w1.renewClaims(claims, TTL)).as("every row read is in a slot w1 still holds under the same grant")
                    .hasSize(64);
            w2.keeper().tick();
            assertThat(w2.claim(ClaimSelection.ELIGIBLE, request("w2", 100))).as("w2 reads nothing w1 has in flight")
                    .isEmpty();
        } finally {
            proceed.countDown();
            threads.shutdownNow();
        }
    }

    @Test
    void aStaleLeanCompletionIsRefusedOnceANewerGrantOfTheSlotIsRegistered() {
        InMemoryLeaseManager manager = new InMemoryLeaseManager(clock);
        OutboxEntry e = enqueue("zombie", 0);
        int slot = LeaseSlots.slotOf("zombie", e.id(), 16);
        SlotGrant old = grant(manager, slot, "a");
        slots.registerGrants(List.of(old));
        OutboxEntry read = slots.selectInSlots(ClaimSelection.ELIGIBLE, 10, List.of(old), false, List.of()).get(0).entry();
        OutboxClaim oldClaim = new OutboxClaim(read, "a", old.fence(), clock.instant(), clock.instant().plus(TTL), 0);

        clock.advance(TTL.plusSeconds(1)); // a is frozen past its slot lease
        SlotGrant newer = grant(manager, slot, "b");
        slots.registerGrants(List.of(newer));

        // the zombie wakes and completes before b has even read the row: refused all the same
        List<CompletionOutcome> stale = slots.completeInSlots(List.of(new SlotOutboxStore.SlotCompletion(oldClaim, slot,
                new Completion.Delivered(new EmissionResult(clock.instant(), "zombie")))));
        assertThat(stale.get(0).isCompleted()).isFalse();
        assertThat(stale.get(0)).isInstanceOf(CompletionOutcome.StaleToken.class);

        OutboxClaim newClaim = new OutboxClaim(read, "b", newer.fence(), clock.instant(), clock.instant().plus(TTL), 0);
        assertThat(slots.completeInSlots(List.of(new SlotOutboxStore.SlotCompletion(newClaim, slot,
                new Completion.Delivered(new EmissionResult(clock.instant(), "ok"))))).get(0).isCompleted()).isTrue();
        // and after it, the old fence is below the row's mark as well
        assertThat(slots.completeInSlots(List.of(new SlotOutboxStore.SlotCompletion(oldClaim, slot,
                new Completion.Released("late")))).get(0).isCompleted()).isFalse();
    }

    @Test
    void aLeanBatchCompletesEachRowWithItsOwnOutcomeAndItsTextIntact() {
        InMemoryLeaseManager manager = new InMemoryLeaseManager(clock);
        List<SlotGrant> all = new ArrayList<>();
        for (int s = 0; s < 16; s++) {
            all.add(grant(manager, s, "w"));
        }
        slots.registerGrants(all);
        OutboxEntry delivered = enqueue("one", 0);
        OutboxEntry retrying = enqueue("two", 0);
        OutboxEntry dead = enqueue("three", 0);
        Map<Long, SlotOutboxStore.SlottedEntry> read = new HashMap<>();
        slots.selectInSlots(ClaimSelection.ELIGIBLE, 10, all, false, List.of()).forEach(r -> read.put(r.entry().id(), r));
        assertThat(read).hasSize(3);
        String awkward = "503 \"quoted\" back\\slash\nnew line\ttab ünïcödé 😀 \u0001";
        java.time.Instant retryAt = clock.instant().plusSeconds(90);
        List<CompletionOutcome> outcomes = slots.completeInSlots(List.of(
                completion(read.get(dead.id()), all, new Completion.DeadLettered(EmissionError.permanent("x", awkward), "reason: " + awkward)),
                completion(read.get(delivered.id()), all, new Completion.Delivered(new EmissionResult(clock.instant(), "ok"))),
                completion(read.get(retrying.id()), all, new Completion.Failed(EmissionError.retryable("y", awkward), Optional.of(retryAt)))));
        assertThat(outcomes).allMatch(CompletionOutcome::isCompleted);

        OutboxEntry d = rows.find(delivered.id()).orElseThrow();
        assertThat(d.status()).isEqualTo(dev.leasebox.outbox.EmissionStatus.DELIVERED);
        assertThat(d.deliveredAt()).contains(clock.instant());
        assertThat(d.attemptCount()).isEqualTo(1);
        OutboxEntry r = rows.find(retrying.id()).orElseThrow();
        assertThat(r.status()).isEqualTo(dev.leasebox.outbox.EmissionStatus.RETRYABLE_FAILURE);
        assertThat(r.nextAttemptAt()).contains(retryAt);
        assertThat(r.lastError()).contains(EmissionError.retryable("y", awkward).describe());
        assertThat(r.deliveredAt()).isEmpty();
        OutboxEntry x = rows.find(dead.id()).orElseThrow();
        assertThat(x.status()).isEqualTo(dev.leasebox.outbox.EmissionStatus.DEAD_LETTERED);
        assertThat(x.deadLetterReason()).contains("reason: " + awkward);
        assertThat(x.lastError()).contains(EmissionError.permanent("x", awkward).describe());
        assertThat(List.of(d, r, x)).allSatisfy(row -> assertThat(row.fenceHighWater())
                .isEqualTo(fenceOf(all, read.get(row.id()).slot())));
    }

    private static long fenceOf(List<SlotGrant> grants, int slot) {
        return grants.stream().filter(g -> g.slot() == slot).findFirst().orElseThrow().fence();
    }

    private SlotOutboxStore.SlotCompletion completion(SlotOutboxStore.SlottedEntry read, List<SlotGrant> grants,
                                                      Completion completion) {
        OutboxClaim claim = new OutboxClaim(read.entry(), "w", fenceOf(grants, read.slot()), clock.instant(),
                clock.instant().plus(TTL), 0);
        return new SlotOutboxStore.SlotCompletion(claim, read.slot(), completion);
    }

    @Test
    void leanReadsSkipRowsUnderARecordedClaim() {
        InMemoryLeaseManager manager = new InMemoryLeaseManager(clock);
        OutboxEntry e = enqueue("recorded", 0);
        int slot = LeaseSlots.slotOf("recorded", e.id(), 16);
        SlotGrant g = grant(manager, slot, "a");
        slots.registerGrants(List.of(g));
        OutboxClaim recorded = rows.claim(ClaimSelection.ELIGIBLE, request("row-worker", 10)).get(0);
        assertThat(slots.selectInSlots(ClaimSelection.ELIGIBLE, 10, List.of(g), false, List.of())).isEmpty();
        OutboxClaim leanClaim = new OutboxClaim(e, "a", g.fence(), clock.instant(), clock.instant().plus(TTL), 0);
        assertThat(slots.completeInSlots(List.of(new SlotOutboxStore.SlotCompletion(leanClaim, slot,
                new Completion.Delivered(new EmissionResult(clock.instant(), "x"))))).get(0).isCompleted()).isFalse();
        assertThat(rows.complete(recorded, new Completion.Delivered(new EmissionResult(clock.instant(), "ok"))).isCompleted())
                .isTrue();
    }
}
