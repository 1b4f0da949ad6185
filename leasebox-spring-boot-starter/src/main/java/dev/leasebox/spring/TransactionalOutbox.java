package dev.leasebox.spring;

import dev.leasebox.Leasebox;
import dev.leasebox.jdbc.OutboxWriter;
import dev.leasebox.jdbc.TableName;
import dev.leasebox.outbox.OutboxEntry;
import dev.leasebox.outbox.OutboxMessage;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import javax.sql.DataSource;
import java.sql.Connection;
import java.time.Clock;
import java.util.Objects;
import java.util.Optional;

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
 *
 * <p><b>Wake-ups.</b> While the application's drain of the same table runs, entries are written through its
 * writer ({@link Leasebox#writer()}), which also wakes the drains of other processes through the coordinator's
 * channel (Redis, ZooKeeper, Hazelcast), and whose clock stamps {@code created_at}. In a transaction, each
 * enqueue hints that a commit is pending (drains look a few times within about 150 ms; a rollback leaves
 * them nothing to find), and the drains are told once more after the commit, so an idle drain looks at once
 * instead of at its next poll; outside one, the enqueue's own commit tells them.
 */
public class TransactionalOutbox {

    private final DataSource dataSource;
    private final TableName table;
    private final Clock clock;
    private final ObjectProvider<LeaseboxDrain> drains;
    private volatile LeaseboxDrain drain; // null: none, or not looked up yet
    private volatile boolean drainLookedUp;
    private volatile OutboxWriter ownWriter;

    /** Writes into {@code table}, waking the drains of this JVM only. */
    public TransactionalOutbox(DataSource dataSource, TableName table, Clock clock) {
        this(dataSource, table, clock, null);
    }

    /**
     * Writes into {@code table} through the writer of the context's drain while it runs and drains {@code table}.
     * The drain is looked up at the first enqueue, not here: a provider bean that itself enqueues makes no cycle.
     */
    TransactionalOutbox(DataSource dataSource, TableName table, Clock clock, ObjectProvider<LeaseboxDrain> drains) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.table = Objects.requireNonNull(table, "table");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.drains = drains;
    }

    /**
     * Adds a PENDING entry in the current transaction. A duplicate idempotency key fails with
     * {@link IllegalArgumentException} (and, on PostgreSQL, marks the transaction for rollback).
     */
    public OutboxEntry enqueue(OutboxMessage message) {
        Connection connection = DataSourceUtils.getConnection(dataSource);
        try {
            OutboxWriter writer = writer();
            OutboxEntry entry = writer.enqueue(connection, message);
            wakeUpAfterCommit(writer);
            return entry;
        } finally {
            DataSourceUtils.releaseConnection(connection, dataSource);
        }
    }

    /** The outbox table written to. */
    public TableName table() {
        return table;
    }

    /** In a transaction: tells the drains once, after the commit (a rollback tells them nothing). */
    private void wakeUpAfterCommit(OutboxWriter writer) {
        if (!TransactionSynchronizationManager.isSynchronizationActive()
                || !TransactionSynchronizationManager.isActualTransactionActive()) {
            return;
        }
        for (TransactionSynchronization registered : TransactionSynchronizationManager.getSynchronizations()) {
            if (registered instanceof WakeUpAfterCommit wakeUp && wakeUp.outbox() == this) {
                return;
            }
        }
        TransactionSynchronizationManager.registerSynchronization(new WakeUpAfterCommit(this, writer));
    }

    private OutboxWriter writer() {
        LeaseboxDrain current = drain();
        if (current != null && current.table().equals(table)) {
            Optional<Leasebox> running = current.leasebox();
            if (running.isPresent()) {
                return running.get().writer();
            }
        }
        OutboxWriter own = ownWriter;
        if (own == null) {
            own = OutboxWriter.of(table, clock);
            ownWriter = own;
        }
        return own;
    }

    private LeaseboxDrain drain() {
        if (!drainLookedUp && drains != null) {
            drain = drains.getIfUnique();
            drainLookedUp = true;
        }
        return drain;
    }

    private record WakeUpAfterCommit(TransactionalOutbox outbox, OutboxWriter writer) implements TransactionSynchronization {

        @Override
        public void afterCommit() {
            writer.committed();
        }
    }
}
