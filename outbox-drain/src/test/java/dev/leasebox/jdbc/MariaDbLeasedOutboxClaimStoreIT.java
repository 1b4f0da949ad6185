package dev.leasebox.jdbc;

import org.junit.jupiter.api.extension.RegisterExtension;
import dev.leasebox.claim.leased.LeasedOutboxClaimStore;
import dev.leasebox.jdbc.store.JdbcOutboxStore;
import dev.leasebox.lease.inmemory.InMemoryLeaseManager;
import dev.leasebox.outbox.FencedOutboxStore;
import dev.leasebox.outbox.OutboxClaimStore;
import dev.leasebox.outbox.contract.OutboxClaimStoreContract;
import dev.leasebox.testkit.MutableClock;

/** LeasedOutboxClaimStore over the JDBC store with the in-memory lease manager passes the claim-store contract on MariaDB; each store gets a fresh table in this class's database. */
class MariaDbLeasedOutboxClaimStoreIT extends OutboxClaimStoreContract {

    @RegisterExtension
    static final MariaDbDatabase DB = new MariaDbDatabase(4);

    @Override
    protected OutboxClaimStore newStore(MutableClock clock) {
        JdbcOutboxStore jdbc = JdbcOutboxStore.builder(DB.ds()).table(TestTables.fresh(DB.ds(), DatabaseKind.MARIADB, DB.name())).clock(clock).open();
        return LeasedOutboxClaimStore.open(over(jdbc), new InMemoryLeaseManager(clock), clock);
    }
}
