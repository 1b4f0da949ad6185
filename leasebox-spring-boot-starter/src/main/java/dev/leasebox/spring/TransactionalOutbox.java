package dev.leasebox.spring;

import dev.leasebox.jdbc.OutboxWriter;
import dev.leasebox.jdbc.TableName;
import dev.leasebox.outbox.OutboxEntry;
import dev.leasebox.outbox.OutboxMessage;
import org.springframework.jdbc.datasource.DataSourceUtils;

import javax.sql.DataSource;
import java.sql.Connection;
import java.time.Clock;
import java.util.Objects;

/**
 * Adds outbox entries in the current Spring transaction: the entry is written on the transaction's own
 * connection ({@link DataSourceUtils#getConnection}), so it commits with the business change and
 * disappears with its rollback. Called outside a transaction, the entry is written on a connection of its
 * own and is visible at once (auto-commit).
 *
 * <pre>{@code
 * @Transactional
 * public void placeOrder(Order order) {
 *     orders.insert(order);
 *     outbox.enqueue(OutboxMessage.of("order-placed", json(order)).withPartitionKey(order.customerId()));
 * }
 * }</pre>
 */
public class TransactionalOutbox {

    private final DataSource dataSource;
    private final TableName table;
    private final OutboxWriter writer;

    public TransactionalOutbox(DataSource dataSource, TableName table, Clock clock) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.table = Objects.requireNonNull(table, "table");
        this.writer = OutboxWriter.of(table, Objects.requireNonNull(clock, "clock"));
    }

    /**
     * Adds a PENDING entry in the current transaction. A duplicate idempotency key fails with
     * {@link IllegalArgumentException} (and, on PostgreSQL, marks the transaction for rollback).
     */
    public OutboxEntry enqueue(OutboxMessage message) {
        Connection connection = DataSourceUtils.getConnection(dataSource);
        try {
            return writer.enqueue(connection, message);
        } finally {
            DataSourceUtils.releaseConnection(connection, dataSource);
        }
    }

    /** The outbox table written to. */
    public TableName table() {
        return table;
    }
}
