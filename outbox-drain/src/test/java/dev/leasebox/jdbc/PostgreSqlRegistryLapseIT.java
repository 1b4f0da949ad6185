package dev.leasebox.jdbc;

import dev.leasebox.Leasebox;
import dev.leasebox.claim.ClaimMode;
import dev.leasebox.drain.DrainOptions;
import dev.leasebox.jdbc.store.JdbcOutboxStore;
import dev.leasebox.lease.inmemory.InMemoryLeaseManager;
import dev.leasebox.outbox.OutboxMessage;
import dev.leasebox.provider.ProviderOutcome;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import javax.sql.DataSource;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.logging.Logger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The claim-style registry on PostgreSQL, seen by the drains: a lean worker whose registration lapsed (its
 * database was unreachable for longer than the validity) while a recorded worker joined must learn of the
 * conflict before it claims again once the database is back, not at its next scheduled renewal.
 */
class PostgreSqlRegistryLapseIT {

    @RegisterExtension
    static final PostgreSqlSchema DB = new PostgreSqlSchema(6);

    private final List<Leasebox> drains = new ArrayList<>();

    @AfterEach
    void closeDrains() {
        drains.forEach(Leasebox::close);
    }

    @Test
    void aWorkerWhoseRegistrationLapsedLearnsOfAConflictingWorkerBeforeItsNextClaim() {
        TableName table = TestTables.fresh(DB.ds(), DatabaseKind.POSTGRESQL, DB.name());
        CuttableDataSource reachOfLean = new CuttableDataSource(DB.ds());
        Queue<String> emittedByLean = new ConcurrentLinkedQueue<>();
        Queue<String> conflicts = new ConcurrentLinkedQueue<>();
        Clock clock = Clock.systemUTC();
        Leasebox lean = register(Leasebox.drain(reachOfLean).table(table).clock(clock)
                .leases(new InMemoryLeaseManager(clock)).coordinator("memory", "this-jvm", "test").claimMode(ClaimMode.LEAN)
                .options(options("lean-1")).onRegistryConflict(conflicts::add)
                .provider(e -> {
                    emittedByLean.add("entry " + e.entryId());
                    return ProviderOutcome.delivered();
                }).build());

        reachOfLean.cut();
        Leasebox recorded = await("the lean worker's registration lapses and a recorded worker joins")
                .atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(250))
                .until(() -> tryJoinRecorded(table, clock), java.util.Objects::nonNull);
        register(recorded);
        JdbcOutboxStore.builder(DB.ds()).table(table).clock(clock).open()
                .enqueue(OutboxMessage.of("order.placed", "order-1".getBytes(StandardCharsets.UTF_8)));
        reachOfLean.restore();

        lean.engine().runOnce();

        assertThat(emittedByLean).as("what the lean worker emitted beside a live recorded worker").isEmpty();
        assertThat(conflicts).as("conflicts told to the lean worker").singleElement().asString()
                .contains("recorded row claims through the database backend").contains("lean-1");
    }

    private static DrainOptions options(String owner) {
        return DrainOptions.builder().owner(owner).batchSize(10).leaseDuration(Duration.ofSeconds(1)).build();
    }

    private Leasebox register(Leasebox drain) {
        drains.add(drain);
        return drain;
    }

    private static Leasebox tryJoinRecorded(TableName table, Clock clock) {
        try {
            return Leasebox.drain(DB.ds()).table(table).clock(clock).options(options("recorded-1"))
                    .provider(e -> ProviderOutcome.delivered()).build();
        } catch (JdbcOutboxException refusedWhileTheLeanWorkerIsLive) {
            return null;
        }
    }

    /** A data source whose connections can be refused, as when the network to the database is down. */
    private static final class CuttableDataSource implements DataSource {
        private final DataSource delegate;
        private volatile boolean cut;

        CuttableDataSource(DataSource delegate) {
            this.delegate = delegate;
        }

        void cut() {
            cut = true;
        }

        void restore() {
            cut = false;
        }

        private void check() throws SQLException {
            if (cut) {
                throw new SQLException("connection refused: the test cut this worker off its database", "08001");
            }
        }

        @Override
        public Connection getConnection() throws SQLException {
            check();
            return delegate.getConnection();
        }

        @Override
        public Connection getConnection(String username, String password) throws SQLException {
            check();
            return delegate.getConnection(username, password);
        }

        @Override
        public PrintWriter getLogWriter() throws SQLException {
            return delegate.getLogWriter();
        }

        @Override
        public void setLogWriter(PrintWriter out) throws SQLException {
            delegate.setLogWriter(out);
        }

        @Override
        public void setLoginTimeout(int seconds) throws SQLException {
            delegate.setLoginTimeout(seconds);
        }

        @Override
        public int getLoginTimeout() throws SQLException {
            return delegate.getLoginTimeout();
        }

        @Override
        public Logger getParentLogger() throws SQLFeatureNotSupportedException {
            return delegate.getParentLogger();
        }

        @Override
        public <T> T unwrap(Class<T> type) throws SQLException {
            return delegate.unwrap(type);
        }

        @Override
        public boolean isWrapperFor(Class<?> type) throws SQLException {
            return delegate.isWrapperFor(type);
        }
    }
}
