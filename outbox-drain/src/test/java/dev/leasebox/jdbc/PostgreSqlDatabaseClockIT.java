package dev.leasebox.jdbc;

import dev.leasebox.claim.ClaimMode;
import dev.leasebox.jdbc.lease.JdbcLeaseManager;
import dev.leasebox.jdbc.store.JdbcOutboxStore;
import dev.leasebox.outbox.CandidateQuery;

import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseRequest;
import dev.leasebox.outbox.ClaimRequest;
import dev.leasebox.outbox.ClaimSelection;
import dev.leasebox.outbox.OutboxClaim;
import dev.leasebox.outbox.OutboxMessage;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code database} backend's expiries are the database's clock's, on PostgreSQL: a worker whose clock
 * runs an hour ahead cannot take a claim or a lease that has not expired by the database's clock, and a
 * worker whose clock runs an hour behind writes expiries that are not an hour in the past. Workers here
 * differ only in their JVM clock ({@code localClock}); a store or manager given an explicit
 * {@code clock(...)} (how every worker judged before) is the contrast that shows the scenario bites.
 */
class PostgreSqlDatabaseClockIT {

    private static final Duration TTL = Duration.ofSeconds(30);
    private static final Clock AHEAD = Clock.offset(Clock.systemUTC(), Duration.ofHours(1));
    private static final Clock BEHIND = Clock.offset(Clock.systemUTC(), Duration.ofHours(-1));

    @RegisterExtension
    static final PostgreSqlSchema DB = new PostgreSqlSchema(8);

    private TableName table;

    @BeforeEach
    void freshTable() {
        table = TestTables.fresh(DB.ds(), DatabaseKind.POSTGRESQL, DB.name());
    }

    private JdbcOutboxStore worker(Clock localClock) {
        return JdbcOutboxStore.builder(DB.ds()).table(table).localClock(localClock).open();
    }

    private Instant databaseNow() throws Exception {
        try (Connection c = DB.ds().getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT clock_timestamp()")) {
            rs.next();
            return rs.getObject(1, java.time.OffsetDateTime.class).toInstant();
        }
    }

    private Instant rowExpiry(long id) throws Exception {
        try (Connection c = DB.ds().getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT claim_expires_at FROM " + table + " WHERE id = " + id)) {
            rs.next();
            return rs.getObject(1, java.time.OffsetDateTime.class).toInstant();
        }
    }

    private void enqueue(JdbcOutboxStore store, int n) {
        for (int i = 0; i < n; i++) {
            store.enqueue(OutboxMessage.of("t", new byte[] {1}).withIdempotencyKey("k" + i + "-" + System.nanoTime()));
        }
    }

    @Test
    void aTakerWhoseClockRunsAheadCannotReclaimAClaimTheDatabaseSeesUnexpired() {
        JdbcOutboxStore holder = worker(Clock.systemUTC());
        enqueue(holder, 10);
        assertThat(holder.claim(ClaimSelection.ELIGIBLE, new ClaimRequest("holder", 10, TTL))).hasSize(10);

        JdbcOutboxStore ahead = worker(AHEAD);
        assertThat(ahead.claim(ClaimSelection.ELIGIBLE, new ClaimRequest("ahead", 10, TTL)))
                .as("judged by the database's clock, the holder's claims run for another 30 s").isEmpty();
        assertThat(ahead.findClaimCandidateIds(CandidateQuery.of(ClaimSelection.ELIGIBLE, 10, 1))).isEmpty();

        JdbcOutboxStore judgingByItsOwnClock = JdbcOutboxStore.builder(DB.ds()).table(table).clock(AHEAD).open();
        assertThat(judgingByItsOwnClock.claim(ClaimSelection.ELIGIBLE, new ClaimRequest("own-clock", 10, TTL)))
                .as("the contrast: a worker judging by its own clock an hour ahead takes every live claim").hasSize(10);
    }

    @Test
    void aHolderWhoseClockRunsBehindWritesItsExpiryByTheDatabasesClock() throws Exception {
        JdbcOutboxStore behind = worker(BEHIND);
        enqueue(behind, 3);
        Instant before = databaseNow();
        List<OutboxClaim> claims = behind.claim(ClaimSelection.ELIGIBLE, new ClaimRequest("behind", 3, TTL));
        Instant after = databaseNow();
        assertThat(claims).hasSize(3);
        for (OutboxClaim claim : claims) {
            assertThat(rowExpiry(claim.entryId())).isBetween(before.plus(TTL).minusMillis(1), after.plus(TTL).plusMillis(1));
            assertThat(claim.expiresAt()).as("the local deadline is the holder's own clock's")
                    .isBefore(before.minus(Duration.ofMinutes(50)));
        }
        assertThat(worker(Clock.systemUTC()).claim(ClaimSelection.ELIGIBLE, new ClaimRequest("other", 3, TTL)))
                .as("nobody may take them: they expire 30 s from now by the database's clock").isEmpty();

        Instant beforeRenewal = databaseNow();
        assertThat(behind.renewClaims(claims, Duration.ofMinutes(5))).hasSize(3);
        assertThat(rowExpiry(claims.get(0).entryId())).as("renewed by the database's clock")
                .isAfterOrEqualTo(beforeRenewal.plus(Duration.ofMinutes(5)).minusMillis(1));
    }

    @Test
    void leanAndSlotCompletionsAreJudgedByTheDatabasesClock() {
        JdbcOutboxStore rows = worker(Clock.systemUTC());
        enqueue(rows, 2);
        dev.leasebox.claim.leased.LeasedOutboxClaimStore lean = dev.leasebox.claim.leased.LeasedOutboxClaimStore
                .builder(rows, new dev.leasebox.lease.inmemory.InMemoryLeaseManager(rows.localClock()), rows.localClock())
                .claimMode(dev.leasebox.claim.ClaimMode.LEAN).open();
        List<OutboxClaim> claims = lean.claim(ClaimSelection.ELIGIBLE, new ClaimRequest("lean", 1, TTL));
        assertThat(claims).hasSize(1);
        assertThat(lean.complete(claims.get(0), new dev.leasebox.outbox.Completion.Delivered(
                dev.leasebox.outbox.EmissionResult.at(Instant.now()))).isCompleted()).isTrue();

        // a recorded claim that the database sees unexpired keeps a lean completion out, whatever its writer's clock
        JdbcOutboxStore behind = worker(BEHIND);
        OutboxClaim recorded = behind.claim(ClaimSelection.ELIGIBLE, new ClaimRequest("recorded", 1, TTL)).get(0);
        OutboxClaim leanOnIt = new OutboxClaim(recorded.entry(), "lean", recorded.token() + 1, recorded.claimedAt(),
                recorded.expiresAt(), recorded.claimAttemptCount());
        assertThat(rows.completeAllFenced(List.of(new dev.leasebox.outbox.ClaimCompletion(leanOnIt,
                new dev.leasebox.outbox.Completion.Released("lean"))))).singleElement()
                .isInstanceOf(dev.leasebox.outbox.CompletionOutcome.StaleToken.class);
    }

    @Test
    void aLeaseInTheTableIsJudgedByTheDatabasesClockToo() {
        JdbcLeaseManager holder = JdbcLeaseManager.builder(DB.ds()).table(table).localClock(BEHIND).open();
        JdbcLeaseManager ahead = JdbcLeaseManager.builder(DB.ds()).table(table).localClock(AHEAD).open();
        try {
            List<Lease> held = holder.acquire(new LeaseRequest(List.of("slot-1"), "holder", TTL));
            assertThat(held).hasSize(1);
            assertThat(ahead.acquire(new LeaseRequest(List.of("slot-1"), "ahead", TTL)))
                    .as("the holder's clock is behind, the taker's ahead; the database's clock says the lease is live")
                    .isEmpty();
            assertThat(holder.renew(held)).hasSize(1);
            assertThat(holder.release(held)).hasSize(1);
            assertThat(ahead.acquire(new LeaseRequest(List.of("slot-1"), "ahead", TTL))).hasSize(1);
        } finally {
            holder.close();
            ahead.close();
        }
    }
}
