package dev.leasebox.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import dev.leasebox.lease.inmemory.InMemoryLeaseManager;
import dev.leasebox.outbox.OutboxClaimStore;
import dev.leasebox.outbox.contract.OutboxClaimStoreContract;
import dev.leasebox.outbox.leased.FencedOutboxStore;
import dev.leasebox.outbox.leased.LeasedOutboxClaimStore;
import dev.leasebox.testkit.MutableClock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The `database` claim backend (lease in the row, tokens from the sequence) passes the claim-store contract on PostgreSQL; each store gets a fresh table in this class's schema. */
class PostgreSqlOutboxClaimStoreIT extends OutboxClaimStoreContract {

    private static HikariDataSource ds;
    private static String schema;

    @BeforeAll
    static void openDatabase() {
        ds = PostgreSqlTestServer.dataSource(4);
        schema = PostgreSqlTestServer.newSchema(ds);
    }

    @AfterAll
    static void closeDatabase() {
        if (ds != null) {
            PostgreSqlTestServer.dropSchema(ds, schema);
            ds.close();
        }
    }

    @Override
    protected OutboxClaimStore newStore(MutableClock clock) {
        return JdbcOutboxStore.builder(ds).table(TestTables.fresh(ds, DatabaseKind.POSTGRESQL, schema)).clock(clock).open();
    }
}
