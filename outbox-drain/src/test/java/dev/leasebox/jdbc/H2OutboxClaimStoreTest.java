package dev.leasebox.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import dev.leasebox.jdbc.store.JdbcOutboxStore;
import dev.leasebox.outbox.OutboxClaimStore;
import dev.leasebox.outbox.contract.OutboxClaimStoreContract;
import dev.leasebox.testkit.MutableClock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The `database` claim backend (lease in the row, tokens from the sequence) passes the claim-store contract on H2; each store gets a fresh table in this class's schema. */
class H2OutboxClaimStoreTest extends OutboxClaimStoreContract {

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
    protected OutboxClaimStore newStore(MutableClock clock) {
        return JdbcOutboxStore.builder(ds).table(TestTables.fresh(ds, DatabaseKind.H2, schema)).clock(clock).open();
    }
}
