package dev.leasebox.provider;

import com.zaxxer.hikari.HikariDataSource;
import dev.leasebox.jdbc.MariaDbTestServer;
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
import java.util.LinkedHashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The jdbc-inbox provider on a real MariaDB: repeats only count, and keys compare byte for byte. */
class MariaDbJdbcInboxProviderIT {

    private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

    private HikariDataSource admin;
    private HikariDataSource inbox;
    private String database;

    @BeforeEach
    void createDatabase() {
        admin = MariaDbTestServer.dataSource(1);
        database = MariaDbTestServer.newDatabase(admin);
        inbox = TestDataSources.pooled(MariaDbTestServer.jdbcUrlFor(database), "", "", 2);
    }

    @AfterEach
    void dropDatabase() {
        inbox.close();
        MariaDbTestServer.dropDatabase(admin, database);
        admin.close();
    }

    private static Envelope envelope(long id, String key, long fence) {
        OutboxEntry entry = OutboxEntry.builder().id(id).idempotencyKey(key).partitionKey("p1").type("t")
                .createdAt(NOW).build().toBuilder().claim("w", fence, NOW, NOW.plusSeconds(5), 1).build();
        return Envelope.forClaim(new OutboxClaim(entry, "w", fence, NOW, NOW.plusSeconds(5), 1));
    }

    @Test
    void aKeyWithATrailingSpaceIsAnotherKeyNotARepeat() throws SQLException {
        JdbcInboxProvider provider = new JdbcInboxProvider(inbox);
        assertThat(provider.emit(envelope(1, "k", 10))).isInstanceOf(ProviderOutcome.Delivered.class);
        assertThat(provider.emit(envelope(2, "k ", 11))).isInstanceOf(ProviderOutcome.Delivered.class);
        assertThat(provider.emit(envelope(1, "k", 12))).isInstanceOf(ProviderOutcome.Delivered.class);

        Map<String, Integer> deliveries = new LinkedHashMap<>();
        try (Connection c = inbox.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("select idempotency_key, deliveries from leasebox_inbox order by first_seq")) {
            while (rs.next()) {
                deliveries.put("[" + rs.getString(1) + "]", rs.getInt(2));
            }
        }
        assertThat(deliveries).containsExactly(Map.entry("[k]", 2), Map.entry("[k ]", 1));
    }
}
