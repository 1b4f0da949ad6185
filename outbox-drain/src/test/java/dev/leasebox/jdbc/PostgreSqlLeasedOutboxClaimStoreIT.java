package dev.leasebox.jdbc;

import org.junit.jupiter.api.extension.RegisterExtension;
import dev.leasebox.claim.leased.LeasedOutboxClaimStore;
import dev.leasebox.jdbc.store.JdbcOutboxStore;
import dev.leasebox.lease.inmemory.InMemoryLeaseManager;
import dev.leasebox.outbox.OutboxClaimStore;
import dev.leasebox.outbox.contract.OutboxClaimStoreContract;
import dev.leasebox.testkit.MutableClock;

/** LeasedOutboxClaimStore over the JDBC store with the in-memory lease manager passes the claim-store contract on PostgreSQL; each store gets a fresh table in this class's schema. */
class PostgreSqlLeasedOutboxClaimStoreIT extends OutboxClaimStoreContract {

    @RegisterExtension
    static final PostgreSqlSchema DB = new PostgreSqlSchema(4);

    @Override
    protected OutboxClaimStore newStore(MutableClock clock) {
        JdbcOutboxStore jdbc = JdbcOutboxStore.builder(DB.ds()).table(TestTables.fresh(DB.ds(), DatabaseKind.POSTGRESQL, DB.name())).clock(clock).open();
        return LeasedOutboxClaimStore.open(over(jdbc), new InMemoryLeaseManager(clock), clock);
    }
}
