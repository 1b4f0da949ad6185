package dev.leasebox.jdbc;

import dev.leasebox.jdbc.lease.JdbcLeaseManager;
import dev.leasebox.testkit.LoopbackPorts;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseManagerException;
import dev.leasebox.lease.LeaseRequest;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * JdbcLeaseManager's scenarios on PostgreSQL (a schema of its own), plus what only a server shows:
 * row locks taken in key order (no deadlocks), the advisory lock that makes raising the fence floor
 * atomic with respect to grants, an unreachable database, and a database that goes away after the
 * manager opened.
 */
class PostgreSqlJdbcLeaseManagerBehaviourIT extends JdbcLeaseManagerScenarios {

    @RegisterExtension
    static final PostgreSqlSchema DB = new PostgreSqlSchema(6);

    private final ExecutorService async = Executors.newSingleThreadExecutor();

    @AfterEach
    void stopAsync() {
        async.shutdownNow();
    }

    @Override
    protected DataSource dataSource() {
        return DB.ds();
    }

    @Override
    protected String schema() {
        return DB.name();
    }

    @Override
    protected DatabaseKind kind() {
        return DatabaseKind.POSTGRESQL;
    }

    /** The lock a grant holds shared while it draws fences, and a floor raise holds exclusively. */
    private String fenceLock(String function) {
        return "SELECT " + function + "('pg_class'::regclass::oid::integer, '" + table
                + "_lease_fence_seq'::regclass::oid::integer)";
    }

    /** Whether a session waits for the fence sequence's advisory lock. */
    private boolean someoneWaitsForTheFenceLock() throws SQLException {
        try (Connection c = DB.ds().getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' "
                     + "AND NOT granted AND classid = 'pg_class'::regclass::oid AND objsubid = 2 "
                     + "AND objid = ?::regclass::oid")) {
            ps.setString(1, table + "_lease_fence_seq");
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getInt(1) > 0;
            }
        }
    }

    /** How many sessions wait, directly or through others, for session {@code root}'s locks. */
    private int sessionsWaitingFor(int root) throws SQLException {
        try (Connection c = DB.ds().getConnection();
             PreparedStatement ps = c.prepareStatement("WITH RECURSIVE waiting(pid) AS ("
                     + " SELECT pid FROM pg_stat_activity WHERE ? = ANY(pg_blocking_pids(pid))"
                     + " UNION SELECT a.pid FROM pg_stat_activity AS a JOIN waiting AS w ON w.pid = ANY(pg_blocking_pids(a.pid))"
                     + ") SELECT count(*) FROM waiting")) {
            ps.setInt(1, root);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }

    private static int backendPid(Connection c) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT pg_backend_pid()")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    /**
     * A third session holds the middle key while a renewal (leases given, and rows stored, in reverse
     * key order) and a grant of the same keys (shuffled) both start: statements that locked rows in
     * the order given or stored would each hold one half and wait for the other half once the middle
     * key is free, a certain deadlock (PostgreSQL would cancel one after deadlock_timeout). Every
     * lease statement locks in lease_key order, so the grant waits at the first key and both complete.
     */
    @Test
    void aRenewalAndAGrantMeetingOnRowLocksDoNotDeadlock() throws Exception {
        assertNoDeadlockBetweenAGrantAnd(held -> manager.renew(held), 20);
    }

    /** As {@link #aRenewalAndAGrantMeetingOnRowLocksDoNotDeadlock()}, for a release. */
    @Test
    void aReleaseAndAGrantMeetingOnRowLocksDoNotDeadlock() throws Exception {
        assertNoDeadlockBetweenAGrantAnd(held -> manager.release(held), 20);
    }

    private void assertNoDeadlockBetweenAGrantAnd(Function<List<Lease>, List<Lease>> holderCall, int count)
            throws Exception {
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            keys.add(String.format("slot-%03d", i));
        }
        // granted one by one from the last key down: the rows lie in the table, and the leases are
        // handed to the holder's call, in reverse key order, so no plan locks in key order by chance
        List<Lease> held = new ArrayList<>();
        for (int i = count - 1; i >= 0; i--) {
            held.addAll(manager.acquire(new LeaseRequest(List.of(keys.get(i)), "holder", TTL)));
        }
        assertThat(held).hasSize(count);
        List<String> shuffled = new ArrayList<>(keys);
        Collections.shuffle(shuffled);
        JdbcLeaseManager other = JdbcLeaseManager.builder(DB.ds()).table(table).clock(clock).open();
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try (Connection blocker = DB.ds().getConnection(); PreparedStatement lock = blocker.prepareStatement(
                "SELECT lease_key FROM " + table + "_leases WHERE lease_key = ? FOR UPDATE")) {
            blocker.setAutoCommit(false);
            int blockerPid = backendPid(blocker);
            lock.setString(1, keys.get(count / 2));
            lock.executeQuery().close();

            Future<List<Lease>> holder = pool.submit(() -> holderCall.apply(held));
            await("the holder's statement to wait for the middle key").atMost(Duration.ofSeconds(10))
                    .until(() -> sessionsWaitingFor(blockerPid) >= 1);
            Future<List<Lease>> grant = pool.submit(() -> other.acquire(new LeaseRequest(shuffled, "other", TTL)));
            await("the grant to wait too").atMost(Duration.ofSeconds(10))
                    .until(() -> sessionsWaitingFor(blockerPid) >= 2);
            blocker.commit();

            assertThat(holder.get(30, TimeUnit.SECONDS)).hasSize(count);
            grant.get(30, TimeUnit.SECONDS);
        } finally {
            pool.shutdownNow();
            other.close();
        }
    }

    @Test
    void raisingTheFloorWaitsForAGrantThatIsDrawingFences() throws Exception {
        try (Connection grant = DB.ds().getConnection(); Statement st = grant.createStatement()) {
            grant.setAutoCommit(false);
            st.execute(fenceLock("pg_advisory_xact_lock_shared"));

            CompletableFuture<Boolean> raise = CompletableFuture.supplyAsync(() -> manager.raiseFenceFloor(1_000), async);
            await("the raise to wait for the grant's lock").atMost(Duration.ofSeconds(10))
                    .until(this::someoneWaitsForTheFenceLock);
            assertThat(raise).isNotDone();

            grant.commit();
            assertThat(raise.get(10, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(manager.acquire(new LeaseRequest(List.of("slot-1"), "w1", TTL)).get(0).fence()).isGreaterThan(1_000);
    }

    @Test
    void aGrantWaitsForARaiseInProgress() throws Exception {
        try (Connection raise = DB.ds().getConnection(); Statement st = raise.createStatement()) {
            raise.setAutoCommit(false);
            st.execute(fenceLock("pg_advisory_xact_lock"));

            CompletableFuture<List<Lease>> grant = CompletableFuture.supplyAsync(
                    () -> manager.acquire(new LeaseRequest(List.of("slot-1", "slot-2"), "w1", TTL)), async);
            await("the grant to wait for the raise's lock").atMost(Duration.ofSeconds(10))
                    .until(this::someoneWaitsForTheFenceLock);
            assertThat(grant).isNotDone();

            raise.commit();
            assertThat(grant.get(10, TimeUnit.SECONDS)).hasSize(2);
        }
    }

    @Test
    void anUnreachableDatabaseIsNamedAtOpen() {
        String url = "jdbc:postgresql://127.0.0.1:" + LoopbackPorts.free() + "/test?user=postgres&password=secret";
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setInitializationFailTimeout(-1);
        config.setConnectionTimeout(500);
        try (HikariDataSource nowhere = new HikariDataSource(config)) {
            assertThatThrownBy(() -> JdbcLeaseManager.builder(nowhere).table(table).clock(clock).open())
                    .isInstanceOf(LeaseManagerException.class)
                    .hasMessageStartingWith("Cannot reach the lease database at " + JdbcUrls.redact(url) + " (open): ")
                    .hasMessageNotContaining("secret");
        }
    }

    @Test
    void aDatabaseThatWentAwayFailsEachCallNamingItsAddress() {
        HikariDataSource own = PostgreSqlTestServer.dataSource(1);
        JdbcLeaseManager onOwnPool = JdbcLeaseManager.builder(own).table(table).clock(clock).open();
        List<Lease> held = onOwnPool.acquire(new LeaseRequest(List.of("slot-1"), "w1", TTL));
        assertThat(held).hasSize(1);

        own.close();

        String address = JdbcUrls.describe(own);
        assertThatThrownBy(() -> onOwnPool.renew(held))
                .isInstanceOf(LeaseManagerException.class)
                .hasMessageStartingWith("Cannot reach the lease database at " + address + " (renew): ");
        assertThatThrownBy(() -> onOwnPool.raiseFenceFloor(10))
                .isInstanceOf(LeaseManagerException.class)
                .hasMessageContaining(address);
    }

    @Test
    void aFailingStatementNamesTheLeaseTableAndTheAddress() throws Exception {
        execute("DROP TABLE " + table + "_leases");

        assertThatThrownBy(() -> manager.acquire(new LeaseRequest(List.of("slot-1"), "w1", TTL)))
                .isInstanceOf(LeaseManagerException.class)
                .hasMessageStartingWith("Database lease acquire on " + table + "_leases at " + JdbcUrls.describe(DB.ds()) + " failed: ")
                .hasMessageContaining("does not exist")
                .hasMessageEndingWith("apply db/leasebox/postgresql/V3__add_lease_slots.sql");
    }
}
