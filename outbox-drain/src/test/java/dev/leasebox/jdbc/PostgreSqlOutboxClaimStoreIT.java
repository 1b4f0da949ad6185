package dev.leasebox.jdbc;

import org.junit.jupiter.api.extension.RegisterExtension;
import dev.leasebox.jdbc.store.JdbcOutboxStore;
import dev.leasebox.outbox.OutboxClaimStore;
import dev.leasebox.outbox.contract.OutboxClaimStoreContract;
import dev.leasebox.testkit.MutableClock;

/** The `database` claim backend (lease in the row, tokens from the sequence) passes the claim-store contract on PostgreSQL; each store gets a fresh table in this class's schema. */
class PostgreSqlOutboxClaimStoreIT extends OutboxClaimStoreContract {

    @RegisterExtension
    static final PostgreSqlSchema DB = new PostgreSqlSchema(4);

    @Override
    protected OutboxClaimStore newStore(MutableClock clock) {
        return JdbcOutboxStore.builder(DB.ds()).table(TestTables.fresh(DB.ds(), DatabaseKind.POSTGRESQL, DB.name())).clock(clock).open();
    }
}
