package dev.leasebox.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import dev.leasebox.jdbc.store.JdbcOutboxStore;
import dev.leasebox.outbox.FencedOutboxStore;
import dev.leasebox.outbox.contract.FencedOutboxStoreContract;
import dev.leasebox.testkit.MutableClock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The JDBC store under external leases passes the fenced-store contract on H2; each store gets a fresh table in this class's schema. */
class H2FencedOutboxStoreTest extends FencedOutboxStoreContract {

    private static HikariDataSource ds;
    private static String schema;

    @BeforeAll
    static void openDatabase() {
        ds = H2TestDatabase.newDatabase();
        schema = H2TestDatabase.SCHEMA;
    }

    @AfterAll
    static void closeDatabase() {
        ds.close();
    }

    @Override
    protected FencedOutboxStore newFencedStore(MutableClock clock) {
        return JdbcOutboxStore.builder(ds).table(TestTables.fresh(ds, DatabaseKind.H2, schema)).clock(clock).open();
    }
}
