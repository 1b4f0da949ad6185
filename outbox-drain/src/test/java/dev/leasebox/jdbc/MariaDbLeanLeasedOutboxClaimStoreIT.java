package dev.leasebox.jdbc;

import dev.leasebox.claim.ClaimMode;
import dev.leasebox.claim.leased.LeasedOutboxClaimStore;
import dev.leasebox.jdbc.store.JdbcOutboxStore;
import dev.leasebox.lease.inmemory.InMemoryLeaseManager;
import dev.leasebox.outbox.OutboxClaimStore;
import dev.leasebox.outbox.contract.OutboxClaimStoreContract;
import dev.leasebox.testkit.MutableClock;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Lean claims over the JDBC store pass the whole claim-store contract on MariaDB; a fresh table per store. */
class MariaDbLeanLeasedOutboxClaimStoreIT extends OutboxClaimStoreContract {

    @RegisterExtension
    static final MariaDbDatabase DB = new MariaDbDatabase(4);

    @Override
    protected OutboxClaimStore newStore(MutableClock clock) {
        JdbcOutboxStore jdbc = JdbcOutboxStore.builder(DB.ds())
                .table(TestTables.fresh(DB.ds(), DatabaseKind.MARIADB, DB.name())).clock(clock).open();
        return LeasedOutboxClaimStore.builder(over(jdbc), new InMemoryLeaseManager(clock), clock).claimMode(ClaimMode.LEAN).open();
    }

    @Override
    protected boolean claimsAreWrittenToRows() {
        return false;
    }
}
