package dev.leasebox.console;

import dev.leasebox.testing.LeaseboxToolBuilder;
import com.zaxxer.hikari.HikariDataSource;
import dev.leasebox.Leasebox;
import dev.leasebox.drain.DrainOptions;
import dev.leasebox.jdbc.DatabaseKind;
import dev.leasebox.jdbc.LeaseboxSchema;
import dev.leasebox.jdbc.OutboxWriter;
import dev.leasebox.jdbc.PostgreSqlTestServer;
import dev.leasebox.jdbc.TableName;
import dev.leasebox.outbox.OutboxClaimStore;
import dev.leasebox.outbox.OutboxMessage;
import dev.leasebox.provider.OutboxProvider;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.stream.IntStream;

/**
 * An outbox table of its own on the real PostgreSQL, the console serving it on a free loopback port, and
 * the drains a test starts on it through the library's entry point. Closing stops all and drops the schema.
 */
final class LiveOutbox implements AutoCloseable {

    final HikariDataSource dataSource = PostgreSqlTestServer.dataSource(8);
    final String schema = PostgreSqlTestServer.newSchema(dataSource);
    final TableName table = new TableName(schema, "outbox");
    private final OutboxWriter writer;
    private final ConsoleSampler sampler;
    private final ConsoleHttpServer server;
    private final List<Leasebox> drains = new ArrayList<>();

    LiveOutbox() {
        new LeaseboxSchema(DatabaseKind.POSTGRESQL, table).applyAll(dataSource);
        writer = OutboxWriter.of(table, Clock.systemUTC());
        sampler = ConsoleSampler.start(dataSource, table, Duration.ofMillis(200), 300);
        server = ConsoleHttpServer.start(new Console(dataSource, sampler), "127.0.0.1", 0);
    }

    String url() {
        return "http://127.0.0.1:" + server.port() + "/";
    }

    /** A drain claiming in the database, started; options are the test's, with a quick idle poll. */
    Leasebox startDrain(DrainOptions.Builder options, OutboxProvider provider, UnaryOperator<OutboxClaimStore> store) {
        Leasebox drain = LeaseboxToolBuilder.drain(dataSource).decorateClaimStore(store).table(table)
                .options(options.idlePolling(Duration.ofMillis(20), Duration.ofMillis(100)).build())
                .provider(provider).build();
        drains.add(drain);
        drain.start();
        return drain;
    }

    /** A drain of this outbox as {@code configure} sets it up, built, started and closed with the outbox. */
    Leasebox startDrain(UnaryOperator<Leasebox.Builder> configure) {
        Leasebox drain = configure.apply(Leasebox.drain(dataSource).table(table)).build();
        drains.add(drain);
        drain.start();
        return drain;
    }

    /** The page shows the claims taken over as {@code total} counts them (the workers' own count). */
    void countTakeovers(java.util.function.LongSupplier total) {
        sampler.takeoversFrom(total);
    }

    /** Entries {@code type-(from+1)} to {@code type-(from+count)}. */
    void enqueue(String type, int from, int count) {
        IntStream.range(from, from + count).forEach(i -> writer.enqueue(dataSource, OutboxMessage.of(type,
                ("{\"n\":" + i + "}").getBytes(StandardCharsets.UTF_8)).withIdempotencyKey(type + "-" + (i + 1))));
    }

    long idOf(String key) throws SQLException {
        return Long.parseLong(column("SELECT id FROM " + table.qualified() + " WHERE idempotency_key = ?", key));
    }

    String statusOf(long id) throws SQLException {
        return column("SELECT status FROM " + table.qualified() + " WHERE id = ?", id);
    }

    private String column(String sql, Object parameter) throws SQLException {
        try (Connection c = dataSource.getConnection(); PreparedStatement st = c.prepareStatement(sql)) {
            st.setObject(1, parameter);
            try (ResultSet rs = st.executeQuery()) {
                return rs.next() ? rs.getString(1) : null;
            }
        }
    }

    @Override
    public void close() {
        server.close();
        sampler.close();
        drains.forEach(Leasebox::close);
        PostgreSqlTestServer.dropSchema(dataSource, schema);
        dataSource.close();
    }
}
