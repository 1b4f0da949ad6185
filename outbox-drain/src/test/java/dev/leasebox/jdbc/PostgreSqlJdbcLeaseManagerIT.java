package dev.leasebox.jdbc;

import dev.leasebox.jdbc.lease.JdbcLeaseManager;
import dev.leasebox.lease.LeaseManager;
import dev.leasebox.lease.contract.LeaseManagerContract;
import dev.leasebox.testkit.MutableClock;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.BeforeEach;

import java.time.Clock;
import java.time.Duration;

/**
 * The whole lease contract against PostgreSQL: every test gets a fresh, explicitly migrated table
 * (V1 to V3) in this class's schema; every manager the kit asks for is a separate JdbcLeaseManager
 * over it, all on one MutableClock that the kit moves, so expiry is deterministic.
 */
class PostgreSqlJdbcLeaseManagerIT extends LeaseManagerContract {

    @RegisterExtension
    static final PostgreSqlSchema DB = new PostgreSqlSchema(8);

    private final MutableClock clock = MutableClock.startingAt2026();
    private TableName table;

    @BeforeEach
    void freshTable() {
        table = TestTables.fresh(DB.ds(), DatabaseKind.POSTGRESQL, DB.name());
    }

    @Override
    protected LeaseManager newManager() {
        return JdbcLeaseManager.builder(DB.ds()).table(table).clock(clock).open();
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
