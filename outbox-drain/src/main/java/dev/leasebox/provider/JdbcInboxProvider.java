package dev.leasebox.provider;


import javax.sql.DataSource;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.Locale;
import java.util.Objects;

/**
 * Delivers into a database table, {@code leasebox_inbox}: the idempotent-receiver pattern, and the
 * downstream the chaos suites and the end-to-end tests measure duplicates with.
 *
 * <p>{@code leasebox_inbox(idempotency_key primary key, entry_id, partition_key, deliveries,
 * last_fence, first_seq)}: the first delivery of a key inserts a row whose {@code first_seq} comes
 * from a sequence (the order of first deliveries); each repeat increments {@code deliveries} and keeps
 * the highest fence seen. One statement per emission, committed before the outcome is reported, so a
 * DELIVERED entry is always in the inbox. The provider creates its table and sequence if missing
 * (it is a receiver, not the outbox: the outbox's schema is never created by Leasebox).
 * PostgreSQL, MariaDB and H2.
 */
public final class JdbcInboxProvider implements OutboxProvider {

    private final DataSource dataSource;
    private final String receiveSql;

    public JdbcInboxProvider(DataSource dataSource) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        String dialect;
        try (Connection connection = dataSource.getConnection()) {
            String product = connection.getMetaData().getDatabaseProductName().toLowerCase(Locale.ROOT);
            dialect = product.contains("h2") ? "h2"
                    : product.contains("mariadb") || product.contains("mysql") ? "mariadb" : "postgresql";
            connection.setAutoCommit(true);
            try (Statement statement = connection.createStatement()) {
                for (String sql : resource(dialect, "create.sql").split(";")) {
                    if (!sql.isBlank()) {
                        executeTolerantOfConcurrentCreation(statement, sql);
                    }
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException("jdbc-inbox provider: could not prepare table leasebox_inbox: " + e.getMessage(), e);
        }
        this.receiveSql = resource(dialect, "receive.sql");
    }

    /**
     * Workers starting together may all run {@code CREATE … IF NOT EXISTS}; PostgreSQL can then fail
     * one of them with a unique violation on its catalog (23505), "relation already exists" (42P07) or
     * "type already exists" (42710, the table's row type): the object exists, which is all that was asked.
     */
    private static void executeTolerantOfConcurrentCreation(Statement statement, String sql) throws SQLException {
        try {
            statement.execute(sql);
        } catch (SQLException e) {
            // MariaDB: 1050 table exists.
            if (!"23505".equals(e.getSQLState()) && !"42P07".equals(e.getSQLState()) && !"42710".equals(e.getSQLState())
                    && e.getErrorCode() != 1050) {
                throw e;
            }
        }
    }

    private static String resource(String dialect, String name) {
        String path = "/db/leasebox/inbox/" + dialect + "/" + name;
        try (InputStream in = JdbcInboxProvider.class.getResourceAsStream(path)) {
            if (in == null) {
                throw new IllegalStateException("missing resource " + path);
            }
            String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            return text.lines().filter(l -> !l.trim().startsWith("--")).reduce("", (a, b) -> a + b + "\n");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public ProviderOutcome emit(Envelope envelope) {
        try (Connection connection = dataSource.getConnection();
             PreparedStatement statement = connection.prepareStatement(receiveSql)) {
            connection.setAutoCommit(true);
            statement.setString(1, envelope.idempotencyKey());
            statement.setLong(2, envelope.entryId());
            if (envelope.partitionKey().isPresent()) {
                statement.setString(3, envelope.partitionKey().get());
            } else {
                statement.setNull(3, Types.VARCHAR);
            }
            if (envelope.fence().isPresent()) {
                statement.setLong(4, envelope.fence().getAsLong());
            } else {
                statement.setNull(4, Types.BIGINT);
            }
            statement.executeUpdate();
            return ProviderOutcome.delivered();
        } catch (SQLException e) {
            return ProviderOutcome.retryable("jdbc-inbox: " + e.getMessage());
        }
    }
}
