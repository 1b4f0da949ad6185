package dev.leasebox.jdbc;

import dev.leasebox.jdbc.store.JdbcOutboxStore;
import dev.leasebox.outbox.OutboxClaimStore;
import dev.leasebox.outbox.contract.OutboxClaimStoreContract;
import dev.leasebox.testkit.MutableClock;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The `database` claim backend passes the claim-store contract on MariaDB under sql_mode
 * SIMULTANEOUS_ASSIGNMENT, set on every pooled connection: a claim writes fence_high_water equal to its
 * token without reading the token back in the same SET.
 */
class MariaDbSimultaneousAssignmentClaimStoreIT extends OutboxClaimStoreContract {

    @RegisterExtension
    static final MariaDbDatabase DB = new MariaDbDatabase(4, MariaDbDatabase.SIMULTANEOUS_ASSIGNMENT);

    @Override
    protected OutboxClaimStore newStore(MutableClock clock) {
        return JdbcOutboxStore.builder(DB.ds()).table(TestTables.fresh(DB.ds(), DatabaseKind.MARIADB, DB.name())).clock(clock).open();
    }
}
