package dev.leasebox.provider;

import com.zaxxer.hikari.HikariDataSource;
import dev.leasebox.jdbc.PostgreSqlTestServer;
import dev.leasebox.jdbc.TestDataSources;
import dev.leasebox.outbox.OutboxClaim;
import dev.leasebox.outbox.OutboxEntry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

/** The jdbc-inbox provider on a real PostgreSQL: the first delivery inserts, repeats only count. */
class JdbcInboxProviderIT {

    private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

    private HikariDataSource admin;
    private HikariDataSource inbox;
    private String schema;

    @BeforeEach
    void createSchema() {
        admin = PostgreSqlTestServer.dataSource(1);
        schema = PostgreSqlTestServer.newSchema(admin);
        inbox = TestDataSources.pooled(PostgreSqlTestServer.jdbcUrlFor(schema), "", "", 2);
    }

    @AfterEach
    void dropSchema() {
        inbox.close();
        PostgreSqlTestServer.dropSchema(admin, schema);
        admin.close();
    }

    private static Envelope envelope(long id, String key, long fence) {
        OutboxEntry entry = OutboxEntry.builder().id(id).idempotencyKey(key).partitionKey("p1").type("t")
                .createdAt(NOW).build().toBuilder().claim("w", fence, NOW, NOW.plusSeconds(5), 1).build();
        return Envelope.forClaim(new OutboxClaim(entry, "w", fence, NOW, NOW.plusSeconds(5), 1));
    }

    @Test
    void repeatsIncrementDeliveriesKeepTheFirstSequenceAndTheHighestFence() throws SQLException {
        JdbcInboxProvider provider = new JdbcInboxProvider(inbox);
        assertThat(provider.emit(envelope(1, "a", 10))).isInstanceOf(ProviderOutcome.Delivered.class);
        assertThat(provider.emit(envelope(2, "b", 11))).isInstanceOf(ProviderOutcome.Delivered.class);
        assertThat(provider.emit(envelope(1, "a", 30))).isInstanceOf(ProviderOutcome.Delivered.class);
        assertThat(provider.emit(envelope(1, "a", 20))).isInstanceOf(ProviderOutcome.Delivered.class);
        try (Connection c = inbox.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("select idempotency_key, deliveries, last_fence, first_seq, partition_key "
                     + "from leasebox_inbox order by first_seq")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getString(1)).isEqualTo("a");
            assertThat(rs.getInt(2)).isEqualTo(3);
            assertThat(rs.getLong(3)).isEqualTo(30);
            long firstA = rs.getLong(4);
            assertThat(rs.getString(5)).isEqualTo("p1");
            assertThat(rs.next()).isTrue();
            assertThat(rs.getString(1)).isEqualTo("b");
            assertThat(rs.getInt(2)).isEqualTo(1);
            assertThat(rs.getLong(4)).isGreaterThan(firstA);
            assertThat(rs.next()).isFalse();
        }
    }

    @Test
    void aSecondProviderOnTheSameInboxReusesItsTable() {
        new JdbcInboxProvider(inbox).emit(envelope(1, "a", 1));
        assertThat(new JdbcInboxProvider(inbox).emit(envelope(1, "a", 2))).isInstanceOf(ProviderOutcome.Delivered.class);
    }
}
