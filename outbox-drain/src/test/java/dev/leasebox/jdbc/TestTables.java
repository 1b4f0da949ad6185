package dev.leasebox.jdbc;

import javax.sql.DataSource;
import java.util.concurrent.atomic.AtomicInteger;

/** Fresh, explicitly migrated outbox tables for tests: one per store a contract kit asks for. */
final class TestTables {

    private static final AtomicInteger COUNTER = new AtomicInteger();

    private TestTables() {
    }

    static TableName fresh(DataSource ds, DatabaseKind kind, String schema) {
        TableName name = new TableName(schema, "outbox_t" + COUNTER.incrementAndGet());
        new LeaseboxSchema(kind, name).applyAll(ds);
        return name;
    }
}
