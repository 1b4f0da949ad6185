package dev.leasebox.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import dev.leasebox.jdbc.lease.JdbcLeaseManager;
import dev.leasebox.lease.LeaseManager;
import dev.leasebox.lease.contract.LeaseManagerContract;
import dev.leasebox.testkit.MutableClock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

import java.time.Clock;
import java.time.Duration;

/**
 * The whole lease contract against H2 in memory (a database of its own): every test gets a fresh,
 * explicitly migrated table (V1 to V3) in schema {@code lb_test}; every manager the kit asks for is a
 * separate JdbcLeaseManager over it, all on one MutableClock that the kit moves, so expiry is deterministic.
 */
class H2JdbcLeaseManagerTest extends LeaseManagerContract {

    private static HikariDataSource ds;

    private final MutableClock clock = MutableClock.startingAt2026();
    private TableName table;

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

    @BeforeEach
    void freshTable() {
        table = TestTables.fresh(ds, DatabaseKind.H2, H2TestDatabase.SCHEMA);
    }

    @Override
    protected LeaseManager newManager() {
        return JdbcLeaseManager.builder(ds).table(table).clock(clock).open();
    }

    @Override
    protected void advanceTime(Duration duration) {
        clock.advance(duration);
    }

    @Override
    protected Clock coordinatorClock() {
        return clock;
    }
}
