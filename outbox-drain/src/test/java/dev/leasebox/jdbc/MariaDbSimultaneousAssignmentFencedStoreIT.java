package dev.leasebox.jdbc;

import dev.leasebox.jdbc.store.JdbcOutboxStore;
import dev.leasebox.outbox.FencedOutboxStore;
import dev.leasebox.outbox.contract.FencedOutboxStoreContract;
import dev.leasebox.testkit.MutableClock;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The fenced-store contract on MariaDB under sql_mode SIMULTANEOUS_ASSIGNMENT, set on every pooled connection. */
class MariaDbSimultaneousAssignmentFencedStoreIT extends FencedOutboxStoreContract {

    @RegisterExtension
    static final MariaDbDatabase DB = new MariaDbDatabase(4, MariaDbDatabase.SIMULTANEOUS_ASSIGNMENT);

    @Override
    protected FencedOutboxStore newFencedStore(MutableClock clock) {
        return JdbcOutboxStore.builder(DB.ds()).table(TestTables.fresh(DB.ds(), DatabaseKind.MARIADB, DB.name())).clock(clock).open();
    }
}
