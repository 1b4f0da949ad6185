package dev.leasebox.jdbc;

import org.junit.jupiter.api.extension.RegisterExtension;
import dev.leasebox.jdbc.store.JdbcOutboxStore;
import dev.leasebox.outbox.FencedOutboxStore;
import dev.leasebox.outbox.contract.FencedOutboxStoreContract;
import dev.leasebox.testkit.MutableClock;

/** The JDBC store under external leases passes the fenced-store contract on PostgreSQL; each store gets a fresh table in this class's schema. */
class PostgreSqlFencedOutboxStoreIT extends FencedOutboxStoreContract {

    @RegisterExtension
    static final PostgreSqlSchema DB = new PostgreSqlSchema(4);

    @Override
    protected FencedOutboxStore newFencedStore(MutableClock clock) {
        return JdbcOutboxStore.builder(DB.ds()).table(TestTables.fresh(DB.ds(), DatabaseKind.POSTGRESQL, DB.name())).clock(clock).open();
    }
}
