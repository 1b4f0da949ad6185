package dev.leasebox.jdbc;

import org.junit.jupiter.api.extension.RegisterExtension;
import dev.leasebox.claim.leased.LeasedOutboxClaimStore;
import dev.leasebox.jdbc.store.JdbcOutboxStore;
import dev.leasebox.lease.inmemory.InMemoryLeaseManager;
import dev.leasebox.outbox.FencedOutboxStore;
import dev.leasebox.outbox.OutboxClaimStore;
import dev.leasebox.outbox.contract.OutboxClaimStoreContract;
import dev.leasebox.testkit.MutableClock;

/** The `database` claim backend (lease in the row, tokens from the sequence) passes the claim-store contract on MariaDB; each store gets a fresh table in this class's database. */
class MariaDbOutboxClaimStoreIT extends OutboxClaimStoreContract {

    @RegisterExtension
    static final MariaDbDatabase DB = new MariaDbDatabase(4);

    @Override
    protected OutboxClaimStore newStore(MutableClock clock) {
        return JdbcOutboxStore.builder(DB.ds()).table(TestTables.fresh(DB.ds(), DatabaseKind.MARIADB, DB.name())).clock(clock).open();
    }
}
