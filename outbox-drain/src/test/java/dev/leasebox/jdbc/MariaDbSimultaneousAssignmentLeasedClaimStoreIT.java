package dev.leasebox.jdbc;

import dev.leasebox.claim.leased.LeasedOutboxClaimStore;
import dev.leasebox.jdbc.store.JdbcOutboxStore;
import dev.leasebox.lease.inmemory.InMemoryLeaseManager;
import dev.leasebox.outbox.OutboxClaimStore;
import dev.leasebox.outbox.contract.OutboxClaimStoreContract;
import dev.leasebox.testkit.MutableClock;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Leased claims over the JDBC store pass the claim-store contract on MariaDB under sql_mode SIMULTANEOUS_ASSIGNMENT. */
class MariaDbSimultaneousAssignmentLeasedClaimStoreIT extends OutboxClaimStoreContract {

    @RegisterExtension
    static final MariaDbDatabase DB = new MariaDbDatabase(4, MariaDbDatabase.SIMULTANEOUS_ASSIGNMENT);

    @Override
    protected OutboxClaimStore newStore(MutableClock clock) {
        JdbcOutboxStore jdbc = JdbcOutboxStore.builder(DB.ds()).table(TestTables.fresh(DB.ds(), DatabaseKind.MARIADB, DB.name())).clock(clock).open();
        return LeasedOutboxClaimStore.open(over(jdbc), new InMemoryLeaseManager(clock), clock);
    }
}
