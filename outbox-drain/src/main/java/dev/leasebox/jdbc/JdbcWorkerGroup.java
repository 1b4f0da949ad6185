package dev.leasebox.jdbc;

import dev.leasebox.outbox.partition.WorkerGroup;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.TreeSet;

/**
 * Worker membership in the outbox's own database ({@code <table>_workers}, created by V3): every
 * backend can use it, and it needs nothing the workers do not already reach. A heartbeat is one
 * statement that also returns the live members. Liveness is judged by each worker's own clock
 * against the expiry the member wrote with its clock, so clock skew between workers shifts when a
 * dead member is noticed; it never affects safety (membership only spreads slots).
 */
public final class JdbcWorkerGroup implements WorkerGroup {

    private final DataSource dataSource;
    private final SqlDialect dialect;
    private final Clock clock;
    private final String where;

    public JdbcWorkerGroup(DataSource dataSource, JdbcOutboxStore rows, Clock clock) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.dialect = rows.dialect();
        this.clock = Objects.requireNonNull(clock, "clock");
        this.where = JdbcUrls.describe(dataSource);
        if (dialect.kind() != DatabaseKind.POSTGRESQL) {
            throw new JdbcOutboxException("Worker membership in the database needs PostgreSQL; " + rows.table() + " is on "
                    + dialect.kind().folder());
        }
    }

    @Override
    public List<String> heartbeat(String owner, Duration ttl) {
        Instant now = clock.instant();
        try (Connection c = dataSource.getConnection();
             PreparedStatement ps = c.prepareStatement(dialect.sql("workers_heartbeat"))) {
            ps.setString(1, owner);
            EntryRows.setInstant(ps, 2, now);
            EntryRows.setInstant(ps, 3, now.plus(ttl));
            EntryRows.setInstant(ps, 4, now);
            EntryRows.setInstant(ps, 5, now);
            TreeSet<String> members = new TreeSet<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    members.add(rs.getString(1));
                }
            }
            return List.copyOf(members);
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
