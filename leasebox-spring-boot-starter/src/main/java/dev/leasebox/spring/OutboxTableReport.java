package dev.leasebox.spring;

import dev.leasebox.jdbc.OutboxTableStatus;
import dev.leasebox.jdbc.SchemaVersion;
import dev.leasebox.jdbc.TableName;

import javax.sql.DataSource;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Optional;

/** Read-only queries on the outbox table for the meters and the health indicator: backlog, oldest pending, schema version. */
public class OutboxTableReport {

    private final DataSource dataSource;
    private final TableName table;
    private final OutboxTableStatus status;

    public OutboxTableReport(DataSource dataSource, TableName table) {
        this.dataSource = dataSource;
        this.table = table;
        this.status = new OutboxTableStatus(dataSource, table);
    }

    /** Entries a worker could act on now: pending, retrying or deferred and due, or under a live claim. */
    public long backlog(Instant now) throws SQLException {
        return status.outstanding(now);
    }

    /** When the oldest entry still waiting for delivery was created; empty when none waits. */
    public Optional<Instant> oldestPendingCreatedAt() throws SQLException {
        return status.oldestPendingCreatedAt();
    }

    /**
     * The highest migration whose objects are all present, checked version by version: 0 when the table is
     * missing, then 1 (the table) up to the newest the code knows.
     */
    public int schemaVersion() throws SQLException {
        return SchemaVersion.applied(dataSource, table);
    }

    public TableName table() {
        return table;
    }

    /** The library's status queries on the same table. */
    public OutboxTableStatus status() {
        return status;
    }
}
