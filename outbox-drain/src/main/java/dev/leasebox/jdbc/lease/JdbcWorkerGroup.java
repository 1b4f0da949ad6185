package dev.leasebox.jdbc.lease;

import dev.leasebox.claim.partition.WorkerGroup;
import dev.leasebox.jdbc.JdbcOutboxException;
import dev.leasebox.jdbc.JdbcUrls;
import dev.leasebox.jdbc.LeaseboxSchema;
import dev.leasebox.jdbc.dialect.SlotStatements;
import dev.leasebox.jdbc.dialect.SqlDialect;
import dev.leasebox.jdbc.store.JdbcOutboxStore;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.TreeSet;

/**
 * Worker membership in the outbox's own database ({@code <table>_workers}, created by V3): every
 * backend can use it, and it needs nothing the workers do not already reach. A heartbeat also
 * returns the live members (one statement on PostgreSQL, three on MariaDB). Liveness is judged by each worker's own clock
 * against the expiry the member wrote with its clock, so clock skew between workers shifts when a
 * dead member is noticed; it never affects safety (membership only spreads slots).
 */
public final class JdbcWorkerGroup implements WorkerGroup {

    private final DataSource dataSource;
    private final SqlDialect dialect;
    private final SlotStatements statements;
    private final Clock clock;
    private final String where;

    public JdbcWorkerGroup(DataSource dataSource, JdbcOutboxStore rows, Clock clock) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.dialect = rows.dialect();
        this.clock = Objects.requireNonNull(clock, "clock");
        this.where = JdbcUrls.describe(dataSource);
        this.statements = SlotStatements.of(dialect);
    }

    @Override
    public List<String> heartbeat(String owner, Duration ttl) {
        Instant now = clock.instant();
        try (Connection c = dataSource.getConnection()) {
            if (!c.getAutoCommit()) {
                c.setAutoCommit(true);
            }
            return List.copyOf(new TreeSet<>(statements.heartbeat(c, owner, now, now.plus(ttl))));
        } catch (SQLException e) {
            throw new JdbcOutboxException("Worker heartbeat of " + owner + " in " + dialect.table() + "_workers at " + where
                    + " failed: " + JdbcUrls.rootMessage(e)
                    + (dialect.isMissingTable(e) ? " (apply " + LeaseboxSchema.V3_FILE + ")" : ""), e);
        }
    }

    @Override
    public void leave(String owner) {
        try (Connection c = dataSource.getConnection();
             PreparedStatement ps = c.prepareStatement(dialect.sql("workers_leave"))) {
            ps.setString(1, owner);
            ps.executeUpdate();
        } catch (SQLException e) {
            throw new JdbcOutboxException("Worker " + owner + " leaving " + dialect.table() + "_workers at " + where
                    + " failed: " + JdbcUrls.rootMessage(e), e);
        }
    }

    @Override
    public String describe() {
        return dialect.table() + "_workers at " + where;
    }
}
