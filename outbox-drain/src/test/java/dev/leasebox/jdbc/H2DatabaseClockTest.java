package dev.leasebox.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import dev.leasebox.claim.ClaimMode;
import dev.leasebox.claim.leased.LeasedOutboxClaimStore;
import dev.leasebox.jdbc.lease.JdbcLeaseManager;
import dev.leasebox.jdbc.store.JdbcOutboxStore;
import dev.leasebox.lease.LeaseRequest;
import dev.leasebox.lease.inmemory.InMemoryLeaseManager;
import dev.leasebox.outbox.ClaimCompletion;
import dev.leasebox.outbox.ClaimRequest;
import dev.leasebox.outbox.ClaimSelection;
import dev.leasebox.outbox.Completion;
import dev.leasebox.outbox.EmissionResult;
import dev.leasebox.outbox.OutboxClaim;
import dev.leasebox.outbox.OutboxMessage;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every statement of the H2 dialect in the default mode, where the database's clock judges (the statements
 * get NULL for "now" and use CURRENT_TIMESTAMP): the database backend's claim, renewal and completion, a
 * lean completion, and the lease table; a worker whose clock runs an hour ahead takes nothing live.
 */
class H2DatabaseClockTest {

    private static final Duration TTL = Duration.ofSeconds(30);
    private static final Clock AHEAD = Clock.offset(Clock.systemUTC(), Duration.ofHours(1));
    private static HikariDataSource ds;

    @BeforeAll
    static void openDatabase() {
        ds = H2TestDatabase.newDatabase();
    }

    @AfterAll
    static void closeDatabase() {
        if (ds != null) {
            ds.close();
        }
    }

    @Test
    void theDatabaseBackendAndLeanCompletionsRunUnderTheDatabasesClock() {
        TableName table = TestTables.fresh(ds, DatabaseKind.H2, H2TestDatabase.SCHEMA);
        JdbcOutboxStore holder = JdbcOutboxStore.builder(ds).table(table).open();
        for (int i = 0; i < 3; i++) {
            holder.enqueue(OutboxMessage.of("t", new byte[] {1}).withIdempotencyKey("h2-clock-" + i));
        }
        List<OutboxClaim> claims = holder.claim(ClaimSelection.ELIGIBLE, new ClaimRequest("holder", 2, TTL));
        assertThat(claims).hasSize(2);
        assertThat(holder.renewClaims(claims, TTL)).hasSize(2);

        JdbcOutboxStore ahead = JdbcOutboxStore.builder(ds).table(table).localClock(AHEAD).open();
        assertThat(ahead.claim(ClaimSelection.ELIGIBLE, new ClaimRequest("ahead", 10, TTL)))
                .as("only the row nobody holds").hasSize(1);
        assertThat(holder.complete(claims.get(0), new Completion.Delivered(EmissionResult.at(Instant.now()))).isCompleted())
                .isTrue();

        TableName leanTable = TestTables.fresh(ds, DatabaseKind.H2, H2TestDatabase.SCHEMA);
        JdbcOutboxStore rows = JdbcOutboxStore.builder(ds).table(leanTable).open();
        rows.enqueue(OutboxMessage.of("t", new byte[] {1}).withIdempotencyKey("h2-clock-lean"));
        LeasedOutboxClaimStore lean = LeasedOutboxClaimStore.builder(rows, new InMemoryLeaseManager(rows.localClock()),
                rows.localClock()).claimMode(ClaimMode.LEAN).open();
        OutboxClaim leanClaim = lean.claim(ClaimSelection.ELIGIBLE, new ClaimRequest("lean", 1, TTL)).get(0);
        assertThat(lean.completeAll(List.of(new ClaimCompletion(leanClaim,
                new Completion.Delivered(EmissionResult.at(Instant.now())))))).singleElement()
                .satisfies(o -> assertThat(o.isCompleted()).isTrue());
    }

    @Test
    void theLeaseTableRunsUnderTheDatabasesClock() {
        TableName table = TestTables.fresh(ds, DatabaseKind.H2, H2TestDatabase.SCHEMA);
        try (JdbcLeaseManager holder = JdbcLeaseManager.builder(ds).table(table).open();
             JdbcLeaseManager ahead = JdbcLeaseManager.builder(ds).table(table).localClock(AHEAD).open()) {
            var held = holder.acquire(new LeaseRequest(List.of("slot-0"), "holder", TTL));
            assertThat(held).hasSize(1);
            assertThat(ahead.acquire(new LeaseRequest(List.of("slot-0"), "ahead", TTL))).isEmpty();
            assertThat(holder.renew(held)).hasSize(1);
            assertThat(holder.release(held)).hasSize(1);
            assertThat(ahead.acquire(new LeaseRequest(List.of("slot-0"), "ahead", TTL))).hasSize(1);
        }
    }
}
