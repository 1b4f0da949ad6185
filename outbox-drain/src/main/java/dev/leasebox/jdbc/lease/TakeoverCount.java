package dev.leasebox.jdbc.lease;

import dev.leasebox.jdbc.LeaseboxSchema;
import dev.leasebox.jdbc.dialect.SqlDialect;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A worker's claims taken over that the table's count (V8, the registry's guard row) does not hold yet, for
 * {@link ClaimStyleRegistry}'s heartbeat to add (decision 0046). A count leaves only once the transaction
 * that adds it has committed ({@link #added}); the registry runs one such transaction at a time.
 */
final class TakeoverCount {

    private static final Logger log = LoggerFactory.getLogger(TakeoverCount.class);

    private final SqlDialect dialect;
    private final String owner;
    private final AtomicLong unwritten = new AtomicLong();
    /** Whether the registry has the {@code taken_over} column; null until a heartbeat with takeovers to add looked. */
    private volatile Boolean inTable;

    TakeoverCount(SqlDialect dialect, String owner) {
        this.dialect = dialect;
        this.owner = owner;
    }

    void counted(int takeovers) {
        unwritten.addAndGet(takeovers);
    }

    long unwritten() {
        return unwritten.get();
    }

    Optional<Boolean> inTable() {
        return Optional.ofNullable(inTable);
    }

    /**
     * What the heartbeat on {@code c} is to add: the unwritten count, or 0 when there is none or the table has no
     * V8. The column is looked for, before the heartbeat's transaction begins, while it has not been found and
     * there is something to add: a table given V8 while the worker runs counts from its next heartbeat.
     */
    long toAdd(Connection c) throws SQLException {
        long adding = unwritten.get();
        if (adding == 0 || Boolean.TRUE.equals(inTable)) {
            return adding;
        }
        try (PreparedStatement probe = c.prepareStatement(dialect.sql("claim_styles_takeovers"))) {
            probe.executeQuery().close();
            inTable = true;
            return adding;
        } catch (SQLException e) {
            if (!c.getAutoCommit()) {
                c.rollback();
            }
            if (!dialect.isMissingColumn(e)) {
                throw e;
            }
            if (inTable == null) {
                log.info("Worker {}: {} has no count of claims taken over, which consoles reading only the table show "
                        + "as n/a, until {} is applied (leasebox schema --apply --jdbc-url URL); meanwhile the worker's "
                        + "metrics count them (leasebox_claims_total{event=\"taken_over\"})", owner, dialect.table(),
                        LeaseboxSchema.resourcePath(dialect.kind(), LeaseboxSchema.V8_FILE));
            }
            inTable = false;
            return 0;
        }
    }

    /** Adds {@code adding} to the table's count, in the caller's transaction, which holds the guard row's lock. */
    void add(Connection c, long adding) throws SQLException {
        if (adding == 0) {
            return;
        }
        try (PreparedStatement add = c.prepareStatement(dialect.sql("claim_styles_add_takeovers"))) {
            add.setLong(1, adding);
            add.executeUpdate();
        } catch (SQLException e) {
            if (dialect.isMissingColumn(e)) {
                inTable = null; // V8 was undone: the next heartbeat looks again, the count kept
            }
            throw e;
        }
    }

    /** The transaction that added {@code adding} committed. */
    void added(long adding) {
        unwritten.addAndGet(-adding);
    }
}
