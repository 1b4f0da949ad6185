package dev.leasebox.jdbc;

import dev.leasebox.jdbc.store.JdbcOutboxStore;
import dev.leasebox.outbox.CandidateQuery;
import dev.leasebox.outbox.ClaimCompletion;
import dev.leasebox.outbox.ClaimGrant;
import dev.leasebox.outbox.ClaimRecording;
import dev.leasebox.outbox.ClaimRequest;
import dev.leasebox.outbox.ClaimSelection;
import dev.leasebox.outbox.Completion;
import dev.leasebox.outbox.CompletionOutcome;
import dev.leasebox.outbox.EmissionError;
import dev.leasebox.outbox.EmissionResult;
import dev.leasebox.outbox.EmissionStatus;
import dev.leasebox.outbox.OutboxClaim;
import dev.leasebox.outbox.OutboxEntry;
import dev.leasebox.outbox.OutboxMessage;
import dev.leasebox.testkit.MutableClock;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What the JDBC store guarantees beyond the contract kits, run against each database by a
 * subclass: every test gets a fresh table (V1 + V2 applied explicitly) in the class's schema.
 */
abstract class JdbcOutboxStoreScenarios {

    private static final AtomicInteger TABLES = new AtomicInteger();
    static final Duration LEASE = Duration.ofSeconds(30);

    protected final MutableClock clock = MutableClock.startingAt2026();
    protected JdbcOutboxStore store;
    protected TableName table;

    /** The data source of the class's database. */
    protected abstract DataSource dataSource();

    /** The class's own schema. */
    protected abstract String schema();

    protected abstract DatabaseKind kind();

    /** A fresh, fully migrated table in the class's schema. */
    protected TableName newTable(int upToVersion) {
        TableName name = new TableName(schema(), "outbox_" + TABLES.incrementAndGet());
        new LeaseboxSchema(kind(), name).apply(dataSource(), 1, upToVersion);
        return name;
    }

    @BeforeEach
    void openStore() {
        table = newTable(2);
        store = JdbcOutboxStore.builder(dataSource()).table(table).clock(clock).candidateSpread(1).open();
    }

    private OutboxEntry enqueue(String type) {
        return store.enqueue(OutboxMessage.of(type, type.getBytes(StandardCharsets.UTF_8)));
    }

    private static ClaimRequest request(String owner, int batch) {
        return new ClaimRequest(owner, batch, LEASE);
    }

    @Test
    void enqueuedEntryReadsBackWhole() {
        OutboxEntry written = store.enqueue(OutboxMessage.of("order.placed", new byte[] {0, 1, (byte) 0xff})
                .withHeader("trace", "a\"b\\c\n").withHeader("content-type", "x").withPartitionKey("order-7")
                .withIdempotencyKey("key-1"));

        OutboxEntry read = store.find(written.id()).orElseThrow();
        assertThat(read).isEqualTo(written);
        assertThat(read.payload()).containsExactly(0, 1, 0xff);
        assertThat(read.headers()).containsEntry("trace", "a\"b\\c\n").containsEntry("content-type", "x");
        assertThat(read.partitionKey()).contains("order-7");
        assertThat(read.createdAt()).isEqualTo(clock.instant());
        assertThat(read.status()).isEqualTo(EmissionStatus.PENDING);
        assertThat(read.fenceHighWater()).isZero();
        assertThatThrownBy(() -> store.enqueue(OutboxMessage.of("again", new byte[0]).withIdempotencyKey("key-1")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("key-1");
    }

    @Test
    void writerEnqueuesInTheCallersTransactionWithoutCommittingOrClosing() throws Exception {
        OutboxWriter writer = store.writer();
        try (Connection c = dataSource().getConnection()) {
            c.setAutoCommit(false);
            OutboxEntry rolledBack = writer.enqueue(c, OutboxMessage.of("t", new byte[0]));
            c.rollback();
            OutboxEntry committed = writer.enqueue(c, OutboxMessage.of("t", new byte[0]));
            assertThat(store.find(committed.id())).as("invisible before the caller commits").isEmpty();
            c.commit();
            assertThat(c.isClosed()).isFalse();
            assertThat(c.getAutoCommit()).isFalse();
            assertThat(store.find(rolledBack.id())).isEmpty();
            assertThat(store.find(committed.id())).isPresent();
        }
    }

    @Test
    void databaseBackendClaimsOldestFirstAndNeverTwiceWhileHeld() {
        OutboxEntry a = enqueue("a");
        OutboxEntry b = enqueue("b");
        enqueue("c");

        List<OutboxClaim> first = store.claim(ClaimSelection.ELIGIBLE, request("w1", 2));
        assertThat(first).extracting(OutboxClaim::entryId).containsExactly(a.id(), b.id());
        OutboxClaim claimA = first.get(0);
        assertThat(claimA.owner()).isEqualTo("w1");
        assertThat(claimA.expiresAt()).isEqualTo(clock.instant().plus(LEASE));
        assertThat(claimA.claimAttemptCount()).isEqualTo(1);
        OutboxEntry row = store.find(a.id()).orElseThrow();
        assertThat(row.claimToken()).hasValue(claimA.token());
        assertThat(row.fenceHighWater()).isEqualTo(claimA.token());

        List<OutboxClaim> second = store.claim(ClaimSelection.ELIGIBLE, request("w2", 10));
        assertThat(second).extracting(OutboxClaim::entryId).doesNotContain(a.id(), b.id()).hasSize(1);
        assertThat(store.findPending(10)).isEmpty();
    }

    @Test
    void reclaimAfterExpiryHasAHigherTokenAndTheStaleHolderCannotFinalize() {
        OutboxEntry e = enqueue("a");
        OutboxClaim old = store.claimPending(request("w1", 1)).get(0);
        assertThat(store.claimPending(request("w2", 1))).isEmpty();

        clock.advance(LEASE);
        OutboxClaim fresh = store.claimPending(request("w2", 1)).get(0);
        assertThat(fresh.token()).isGreaterThan(old.token());
        assertThat(fresh.claimAttemptCount()).isEqualTo(2);

        CompletionOutcome stale = store.markClaimDelivered(old, EmissionResult.at(clock.instant()));
        assertThat(stale).isInstanceOf(CompletionOutcome.Reclaimed.class);
        assertThat(store.renewClaims(List.of(old), LEASE)).isEmpty();
        OutboxEntry row = store.find(e.id()).orElseThrow();
        assertThat(row.status()).isEqualTo(EmissionStatus.PENDING);
        assertThat(row.claimToken()).hasValue(fresh.token());
        assertThat(row.claimOwner()).contains("w2");

        CompletionOutcome done = store.markClaimDelivered(fresh, EmissionResult.at(clock.instant()));
        OutboxEntry delivered = ((CompletionOutcome.Completed) done).entry();
        assertThat(delivered.status()).isEqualTo(EmissionStatus.DELIVERED);
        assertThat(delivered.attemptCount()).isEqualTo(1);
        assertThat(delivered.claimToken()).isEmpty();
        assertThat(delivered.claimOwner()).isEmpty();
        assertThat(delivered.fenceHighWater()).isEqualTo(fresh.token());
        assertThat(delivered.deliveredAt()).contains(clock.instant());
        assertThat(store.markClaimDelivered(fresh, EmissionResult.at(clock.instant())))
                .isInstanceOf(CompletionOutcome.AlreadyTerminal.class);
    }

    @Test
    void completeAllWritesEachKindInOneCallAndClassifiesRefusals() {
        for (int i = 0; i < 5; i++) {
            enqueue("e" + i);
        }
        List<OutboxClaim> claims = store.claimPending(request("w", 5));
        Instant retryAt = clock.instant().plusSeconds(60);
        OutboxEntry deferredCopy = claims.get(3).entry().toBuilder().status(EmissionStatus.DEFERRED)
                .nextAttemptAt(clock.instant().plusSeconds(5)).build();
        OutboxClaim forged = new OutboxClaim(claims.get(4).entry(), "w", claims.get(4).token() + 1000,
                clock.instant(), clock.instant().plus(LEASE), 1);

        List<CompletionOutcome> outcomes = store.completeAll(List.of(
                new ClaimCompletion(claims.get(0), new Completion.Delivered(EmissionResult.at(clock.instant()))),
                new ClaimCompletion(claims.get(1), new Completion.Failed(EmissionError.retryable("io", "down"), Optional.of(retryAt))),
                new ClaimCompletion(claims.get(2), new Completion.DeadLettered(EmissionError.permanent("400", "bad"), "poison")),
                new ClaimCompletion(claims.get(3), new Completion.Saved(deferredCopy)),
                new ClaimCompletion(forged, new Completion.Released("x")),
                new ClaimCompletion(claims.get(4), new Completion.Released("shutdown"))));

        assertThat(outcomes).hasSize(6);
        assertThat(entryOf(outcomes.get(0)).status()).isEqualTo(EmissionStatus.DELIVERED);
        OutboxEntry retry = entryOf(outcomes.get(1));
        assertThat(retry.status()).isEqualTo(EmissionStatus.RETRYABLE_FAILURE);
        assertThat(retry.nextAttemptAt()).contains(retryAt);
        assertThat(retry.lastError()).contains("io: down");
        OutboxEntry dead = entryOf(outcomes.get(2));
        assertThat(dead.status()).isEqualTo(EmissionStatus.DEAD_LETTERED);
        assertThat(dead.deadLetterReason()).contains("poison");
        assertThat(entryOf(outcomes.get(3)).status()).isEqualTo(EmissionStatus.DEFERRED);
        assertThat(entryOf(outcomes.get(3)).attemptCount()).isZero();
        assertThat(outcomes.get(4)).isInstanceOf(CompletionOutcome.StaleToken.class);
        OutboxEntry released = entryOf(outcomes.get(5));
        assertThat(released.status()).isEqualTo(EmissionStatus.PENDING);
        assertThat(released.attemptCount()).isZero();
        assertThat(released.claimToken()).isEmpty();
        assertThat(released.fenceHighWater()).isEqualTo(claims.get(4).token());

        assertThat(store.claimRetryReady(request("w", 5))).isEmpty();
        clock.advance(Duration.ofSeconds(60));
        assertThat(store.claimRetryReady(request("w", 5))).extracting(OutboxClaim::entryId)
                .containsExactly(claims.get(1).entryId());
        assertThat(store.claimPending(request("w", 5))).extracting(OutboxClaim::entryId)
                .containsExactly(claims.get(3).entryId(), claims.get(4).entryId());
    }

    @Test
    void timesARecordAndACompletionWriteKeepTheirMicrosecondsAndDropTheRest() {
        OutboxEntry a = enqueue("a");
        OutboxEntry b = enqueue("b");
        Instant claimedAt = clock.instant().plusNanos(123_456_789);
        Instant expiresAt = claimedAt.plus(LEASE).plusNanos(200);
        ClaimRecording recording = store.recordClaims(ClaimSelection.ELIGIBLE, List.of(
                new ClaimGrant(a.id(), "w", 7, claimedAt, expiresAt),
                new ClaimGrant(b.id(), "w", 8, claimedAt, expiresAt)));
        assertThat(recording.recorded()).hasSize(2);
        OutboxEntry recorded = store.find(a.id()).orElseThrow();
        assertThat(recorded.claimedAt()).contains(Instant.parse("2026-01-01T00:00:00.123456Z"));
        assertThat(recorded.claimExpiresAt()).contains(Instant.parse("2026-01-01T00:00:30.123456Z"));
        assertThat(recording.recorded().get(0).claimedAt()).isEqualTo(Instant.parse("2026-01-01T00:00:00.123456Z"));

        Instant deliveredAt = clock.instant().plusNanos(1_999);
        Instant retryAt = clock.instant().plusSeconds(60).plusNanos(500_000_001);
        List<CompletionOutcome> outcomes = store.completeAll(List.of(
                new ClaimCompletion(recording.recorded().get(0), new Completion.Delivered(EmissionResult.at(deliveredAt))),
                new ClaimCompletion(recording.recorded().get(1),
                        new Completion.Failed(EmissionError.retryable("io", "down"), Optional.of(retryAt)))));
        assertThat(entryOf(outcomes.get(0)).deliveredAt()).contains(Instant.parse("2026-01-01T00:00:00.000001Z"));
        assertThat(store.find(a.id()).orElseThrow().deliveredAt()).contains(Instant.parse("2026-01-01T00:00:00.000001Z"));
        assertThat(store.find(a.id()).orElseThrow().nextAttemptAt()).isEmpty();
        assertThat(store.find(b.id()).orElseThrow().nextAttemptAt()).contains(Instant.parse("2026-01-01T00:01:00.500000Z"));
        assertThat(store.find(b.id()).orElseThrow().deliveredAt()).isEmpty();
        assertThat(store.find(b.id()).orElseThrow().claimedAt()).isEmpty();
    }

    private static OutboxEntry entryOf(CompletionOutcome outcome) {
        assertThat(outcome).isInstanceOf(CompletionOutcome.Completed.class);
        return ((CompletionOutcome.Completed) outcome).entry();
    }

    @Test
    void recordClaimsRefusesFencesNotAboveTheHighWaterMarkAndSaysWhy() {
        OutboxEntry a = enqueue("a");
        OutboxEntry b = enqueue("b");
        OutboxEntry c = enqueue("c");
        Instant now = clock.instant();
        ClaimRecording first = store.recordClaims(ClaimSelection.ELIGIBLE, List.of(
                new ClaimGrant(a.id(), "w1", 10, now, now.plus(LEASE)),
                new ClaimGrant(b.id(), "w1", 11, now, now.plus(LEASE))));
        assertThat(first.recorded()).extracting(OutboxClaim::token).containsExactly(10L, 11L);
        assertThat(first.refused()).isEmpty();
        store.markClaimDelivered(first.recorded().get(1), EmissionResult.at(now));
        store.releaseClaim(first.recorded().get(0), "test");

        ClaimRecording second = store.recordClaims(ClaimSelection.ELIGIBLE, List.of(
                new ClaimGrant(a.id(), "w2", 10, now, now.plus(LEASE)),   // equal to the mark: refused
                new ClaimGrant(b.id(), "w2", 50, now, now.plus(LEASE)),   // delivered: not eligible
                new ClaimGrant(c.id(), "w2", 12, now, now.plus(LEASE)),   // fine
                new ClaimGrant(987_654, "w2", 13, now, now.plus(LEASE)))); // no such row
        assertThat(second.recorded()).extracting(OutboxClaim::entryId).containsExactly(c.id());
        assertThat(second.refused()).extracting(r -> r.grant().entryId(), ClaimRecording.Refusal::reason,
                ClaimRecording.Refusal::fenceHighWater).containsExactly(
                org.assertj.core.groups.Tuple.tuple(a.id(), ClaimRecording.Reason.FENCE_NOT_ABOVE_HIGH_WATER, 10L),
                org.assertj.core.groups.Tuple.tuple(b.id(), ClaimRecording.Reason.NOT_ELIGIBLE, 11L),
                org.assertj.core.groups.Tuple.tuple(987_654L, ClaimRecording.Reason.MISSING, 0L));
        assertThat(store.find(a.id()).orElseThrow().claimToken()).isEmpty();
        assertThat(store.highestFenceHighWater()).isEqualTo(12);
    }

    @Test
    void databaseTokensClimbAboveAFenceAnExternalManagerRecorded() {
        OutboxEntry a = enqueue("a");
        Instant now = clock.instant();
        OutboxClaim external = store.recordClaims(ClaimSelection.ELIGIBLE,
                List.of(new ClaimGrant(a.id(), "ext", 1_000_000, now, now.plus(LEASE)))).recorded().get(0);
        store.releaseClaim(external, "handover");

        OutboxClaim local = store.claimPending(request("db", 1)).get(0);
        assertThat(local.token()).isGreaterThan(1_000_000);
        assertThat(store.find(a.id()).orElseThrow().fenceHighWater()).isEqualTo(local.token());
    }

    @Test
    void renewalMovesTheExpiryOnlyWhileTheTokenHolds() {
        enqueue("a");
        OutboxClaim claim = store.claimPending(request("w", 1)).get(0);
        clock.advance(Duration.ofSeconds(20));
        List<OutboxClaim> renewed = store.renewClaims(List.of(claim), LEASE);
        assertThat(renewed).singleElement().extracting(OutboxClaim::expiresAt).isEqualTo(clock.instant().plus(LEASE));
        clock.advance(Duration.ofSeconds(20));
        assertThat(store.claimPending(request("other", 1))).as("renewed claim still holds").isEmpty();
    }

    @Test
    void candidateIdsReadOnlyAndSkipHeldAndUndueRows() {
        OutboxEntry a = enqueue("a");
        OutboxEntry b = enqueue("b");
        store.claimPending(request("w", 1));
        List<OutboxEntry> candidates = candidateRows(store, 10);
        assertThat(candidates).extracting(OutboxEntry::id).containsExactly(b.id());
        assertThat(store.find(b.id()).orElseThrow().claimToken()).isEmpty();
        clock.advance(LEASE);
        assertThat(candidateRows(store, 10)).extracting(OutboxEntry::id)
                .containsExactly(a.id(), b.id());
    }

    @Test
    void spreadCandidatesAreARandomSubsetOfTheOldestWindow() {
        for (int i = 0; i < 40; i++) {
            enqueue("e" + i);
        }
        JdbcOutboxStore spread = JdbcOutboxStore.builder(dataSource()).table(table).clock(clock).candidateSpread(4).open();
        long oldestWindowEnd = store.findPending(40).get(19).id();
        java.util.Set<Long> seen = new java.util.HashSet<>();
        for (int round = 0; round < 20; round++) {
            List<OutboxEntry> chosen = candidateRows(spread, 5);
            assertThat(chosen).hasSize(5).isSortedAccordingTo(java.util.Comparator.comparingLong(OutboxEntry::id));
            assertThat(chosen).allSatisfy(e -> assertThat(e.id()).isLessThanOrEqualTo(oldestWindowEnd));
            chosen.forEach(e -> seen.add(e.id()));
        }
        assertThat(seen).as("20 rounds of 5 out of 20 reach beyond the oldest 5").hasSizeGreaterThan(5);
    }

    @Test
    void spreadCandidatesTakeLapsedClaimsFirstForUpToThreeQuartersOfTheBatch() {
        List<OutboxEntry> rows = new java.util.ArrayList<>();
        for (int i = 0; i < 40; i++) {
            rows.add(enqueue("e" + i));
        }
        // a dead worker's claims on three rows in the middle of the window, then on six more
        Instant now = clock.instant();
        List<Long> orphans = List.of(rows.get(12).id(), rows.get(17).id(), rows.get(19).id());
        long token = 100;
        List<ClaimGrant> grants = new java.util.ArrayList<>();
        for (long id : orphans) {
            grants.add(new ClaimGrant(id, "dead", token++, now, now.plus(LEASE)));
        }
        assertThat(store.recordClaims(ClaimSelection.ELIGIBLE, grants).recorded()).hasSize(3);
        JdbcOutboxStore spread = JdbcOutboxStore.builder(dataSource()).table(table).clock(clock).candidateSpread(4).open();
        assertThat(candidateRows(spread, 6)).extracting(OutboxEntry::id)
                .as("claimed rows are not candidates before their expiry").doesNotContainAnyElementsOf(orphans);

        clock.advance(LEASE);
        for (int round = 0; round < 20; round++) {
            List<OutboxEntry> chosen = candidateRows(spread, 6);
            assertThat(chosen).hasSize(6).isSortedAccordingTo(java.util.Comparator.comparingLong(OutboxEntry::id));
            assertThat(chosen).extracting(OutboxEntry::id).as("every lapsed claim, in every sample of 6 from 24")
                    .containsAll(orphans);
        }

        List<ClaimGrant> more = new java.util.ArrayList<>();
        for (int i = 0; i < 6; i++) {
            more.add(new ClaimGrant(rows.get(i).id(), "dead", token++, clock.instant(), clock.instant().plus(LEASE)));
        }
        assertThat(store.recordClaims(ClaimSelection.ELIGIBLE, more).recorded()).hasSize(6);
        clock.advance(LEASE);
        int withUnclaimedRows = 0;
        for (int round = 0; round < 50; round++) {
            List<OutboxEntry> chosen = candidateRows(spread, 6);
            assertThat(chosen).hasSize(6);
            assertThat(chosen.stream().filter(e -> e.claimExpiresAt().isPresent()).count())
                    .as("9 lapsed claims among 24: a quota of 4 or 5 of a batch of 6 is theirs, the rest a random draw")
                    .isGreaterThanOrEqualTo(4L);
            if (chosen.stream().anyMatch(e -> e.claimExpiresAt().isEmpty())) {
                withUnclaimedRows++;
            }
        }
        // the rest is drawn from the 4 or 5 lapsed and 15 unclaimed rows left: all lapsed in 13 % of samples
        assertThat(withUnclaimedRows).as("samples that are not made of lapsed claims only (a lapsed claim's lease may still "
                + "be held, and a batch of those claims nothing)").isGreaterThanOrEqualTo(33);
    }

    @Test
    void missingTableAndMissingClaimColumnsFailAtOpenWithOneLine() {
        TableName absent = new TableName(schema(), "no_such_outbox");
        assertThatThrownBy(() -> JdbcOutboxStore.builder(dataSource()).table(absent).open())
                .isInstanceOf(JdbcOutboxException.class)
                .hasMessageContaining("Outbox table " + absent + " does not exist")
                .hasMessageContaining("apply the scripts of db/leasebox/" + kind().folder() + "/ in order (V1 to V")
                .hasMessageNotContaining("\n");

        TableName v1Only = newTable(1);
        assertThatThrownBy(() -> JdbcOutboxStore.builder(dataSource()).table(v1Only).open())
                .isInstanceOf(JdbcOutboxException.class)
                .hasMessageContaining("lacks the claim columns")
                .hasMessageContaining("db/leasebox/" + kind().folder() + "/V2__add_claim_leases.sql")
                .hasMessageContaining("useClaimLeases = false")
                .hasMessageContaining("emit the same entry twice")
                .hasMessageNotContaining("\n");
    }

    @Test
    void withoutClaimLeasesAV1TableDrainsThroughTheSelectionOnlyPath() {
        TableName v1Only = newTable(1);
        JdbcOutboxStore plain = JdbcOutboxStore.builder(dataSource()).table(v1Only).clock(clock)
                .useClaimLeases(false).open();
        OutboxEntry e = plain.enqueue(OutboxMessage.of("t", new byte[] {1}));
        assertThat(plain.findPending(10)).extracting(OutboxEntry::id).containsExactly(e.id());
        OutboxEntry saved = plain.save(e.toBuilder().status(EmissionStatus.DELIVERED).attemptCount(1)
                .deliveredAt(clock.instant()).build());
        assertThat(saved.status()).isEqualTo(EmissionStatus.DELIVERED);
        assertThat(plain.findPending(10)).isEmpty();
        assertThatThrownBy(() -> plain.claimPending(request("w", 1)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("useClaimLeases = false");
    }

    @Test
    void anInvalidTableNameIsRefusedBeforeAnySql() {
        assertThatThrownBy(() -> JdbcOutboxStore.builder(dataSource()).table("outbox; DROP TABLE x").open())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Invalid outbox table name 'outbox; DROP TABLE x' (property table): use letters, digits "
                        + "and underscores, starting with a letter or underscore, at most 40 characters, optionally "
                        + "schema-qualified as schema.table");
    }

    /** The rows of a plain candidate read of {@code limit} ids (a batch of {@code limit}, no over-ask), by id. */
    private List<OutboxEntry> candidateRows(JdbcOutboxStore from, int limit) {
        return from.findClaimCandidateIds(CandidateQuery.of(ClaimSelection.ELIGIBLE, limit, 1)).stream()
                .map(id -> store.find(id).orElseThrow()).sorted(java.util.Comparator.comparingLong(OutboxEntry::id)).toList();
    }
}
