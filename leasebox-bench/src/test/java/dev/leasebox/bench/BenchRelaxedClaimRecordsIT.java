package dev.leasebox.bench;

import com.zaxxer.hikari.HikariDataSource;
import dev.leasebox.jdbc.TableName;
import dev.leasebox.jdbc.store.JdbcOutboxStore;
import dev.leasebox.outbox.ClaimGrant;
import dev.leasebox.outbox.ClaimRecording;
import dev.leasebox.outbox.ClaimSelection;
import dev.leasebox.outbox.Completion;
import dev.leasebox.outbox.CompletionOutcome;
import dev.leasebox.outbox.EmissionResult;
import dev.leasebox.outbox.EmissionStatus;
import dev.leasebox.outbox.OutboxClaim;
import dev.leasebox.outbox.OutboxEntry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Lever (a), proven safe on the real PostgreSQL: claim records written with
 * {@code synchronous_commit = off} are ordinary claims, the relaxed setting does not leak into the
 * pooled connection, and a completion presented with a token the row does not carry — what a holder
 * whose claim record was lost in a crash would present — is refused and changes nothing.
 */
class BenchRelaxedClaimRecordsIT {

    private BenchDatabase database;
    private HikariDataSource pool;
    private JdbcOutboxStore store;
    private final Instant now = Instant.now().truncatedTo(ChronoUnit.MILLIS);

    @BeforeEach
    void openStore() {
        database = BenchDatabase.open(System.getenv().getOrDefault("LEASEBOX_JDBC_URL", BenchCommand.DEFAULT_JDBC_URL));
        TableName table = database.freshTable();
        database.fill(table, 1, 3, now.minusSeconds(1));
        pool = database.newPool(1); // one connection: the one the relaxed transaction ran on is the one checked after
        store = JdbcOutboxStore.builder(pool).table(table).claimRecordsWithoutWalFlush().open();
    }

    @AfterEach
    void close() {
        if (pool != null) {
            pool.close();
        }
        if (database != null) {
            database.close();
        }
    }

    @Test
    void relaxedClaimRecordsAreClaimsAndTheSettingStaysInsideTheirTransaction() throws SQLException {
        ClaimRecording recording = store.recordClaims(ClaimSelection.ELIGIBLE, List.of(grant(1, 10)));

        assertThat(recording.refused()).isEmpty();
        assertThat(recording.recorded()).singleElement().satisfies(c -> assertThat(c.token()).isEqualTo(10));
        assertThat(row(1).claimToken()).hasValue(10);
        assertThat(row(1).fenceHighWater()).isEqualTo(10);
        try (Connection c = pool.getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SHOW synchronous_commit")) {
            rs.next();
            assertThat(rs.getString(1)).isEqualTo("on");
            assertThat(c.getAutoCommit()).isTrue();
        }
        assertThat(store.complete(recording.recorded().get(0), delivered()).isCompleted()).isTrue();
        assertThat(row(1).status()).isEqualTo(EmissionStatus.DELIVERED);
    }

    @Test
    void aCompletionWithATokenTheRowDoesNotCarryIsRefused() {
        OutboxClaim current = store.recordClaims(ClaimSelection.ELIGIBLE, List.of(grant(1, 10))).recorded().get(0);
        // a holder whose record was lost and overwritten by a later claim presents an older token
        OutboxClaim stale = new OutboxClaim(current.entry(), "lost-holder", 9, now, now.plusSeconds(30), 1);
        // a holder whose only record was lost in a crash: the row carries no token at all
        OutboxEntry unrecorded = row(2);
        OutboxClaim lost = new OutboxClaim(unrecorded, "lost-holder", 11, now, now.plusSeconds(30), 1);

        CompletionOutcome staleOutcome = store.complete(stale, delivered());
        CompletionOutcome lostOutcome = store.complete(lost, delivered());

        assertThat(staleOutcome.isCompleted()).isFalse();
        assertThat(lostOutcome.isCompleted()).isFalse();
        assertThat(row(1).status()).isEqualTo(EmissionStatus.PENDING);
        assertThat(row(1).claimToken()).hasValue(10);
        assertThat(row(2).status()).isEqualTo(EmissionStatus.PENDING);
        assertThat(row(2).claimToken()).isEmpty();
        assertThat(store.complete(current, delivered()).isCompleted()).as("the token the row carries still completes").isTrue();
    }

    private ClaimGrant grant(long id, long token) {
        return new ClaimGrant(id, "holder", token, now, now.plus(Duration.ofSeconds(30)));
    }

    private Completion delivered() {
        return new Completion.Delivered(EmissionResult.at(now));
    }

    private OutboxEntry row(long id) {
        return store.find(id).orElseThrow();
    }
}
