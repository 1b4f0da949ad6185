package dev.leasebox.jdbc;

import org.junit.jupiter.api.extension.RegisterExtension;
import dev.leasebox.claim.leased.LeasedOutboxClaimStore;
import dev.leasebox.jdbc.store.JdbcOutboxStore;
import dev.leasebox.lease.inmemory.InMemoryLeaseManager;
import dev.leasebox.outbox.FencedOutboxStore;
import dev.leasebox.outbox.OutboxClaimStore;
import dev.leasebox.outbox.contract.FencedOutboxStoreContract;
import dev.leasebox.testkit.MutableClock;

/** The JDBC store under external leases passes the fenced-store contract on MariaDB; each store gets a fresh table in this class's database. */
class MariaDbFencedOutboxStoreIT extends FencedOutboxStoreContract {

    @RegisterExtension
    static final MariaDbDatabase DB = new MariaDbDatabase(4);

    @Override
    protected FencedOutboxStore newFencedStore(MutableClock clock) {
        return JdbcOutboxStore.builder(DB.ds()).table(TestTables.fresh(DB.ds(), DatabaseKind.MARIADB, DB.name())).clock(clock).open();
    }
}
