package dev.leasebox.spring;

import dev.leasebox.jdbc.SchemaVersion;
import dev.leasebox.jdbc.TableName;

import javax.sql.DataSource;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.Optional;

/** Read-only queries on the outbox table for the meters and the health indicator: backlog, oldest pending, schema version. */
public class OutboxTableReport {

    private final DataSource dataSource;
    private final TableName table;
    private final String outstandingSql;
    private final String oldestPendingSql;

    public OutboxTableReport(DataSource dataSource, TableName table) {
        this.dataSource = dataSource;
        this.table = table;
        this.outstandingSql = statusSql("outstanding.sql");
        this.oldestPendingSql = statusSql("oldest_pending.sql");
    }

    /** Entries a worker could act on now: pending, retrying or deferred and due, or under a live claim. */
    public long backlog(Instant now) throws SQLException {
        Timestamp ts = Timestamp.from(now);
        try (Connection c = dataSource.getConnection(); PreparedStatement st = c.prepareStatement(outstandingSql)) {
            st.setTimestamp(1, ts);
            st.setTimestamp(2, ts);
            try (ResultSet rs = st.executeQuery()) {
                return rs.next() ? rs.getLong(1) : 0;
            }
        }
    }

    /** When the oldest entry still waiting for delivery was created; empty when none waits. */
    public Optional<Instant> oldestPendingCreatedAt() throws SQLException {
        try (Connection c = dataSource.getConnection(); PreparedStatement st = c.prepareStatement(oldestPendingSql);
             ResultSet rs = st.executeQuery()) {
            if (rs.next()) {
                Timestamp t = rs.getTimestamp(1);
                return Optional.ofNullable(t).map(Timestamp::toInstant);
            }
            return Optional.empty();
        }
    }

    /**
     * The highest migration whose objects are all present, checked version by version: 0 when the table is
     * missing, 1 (the table), 2 (claim columns), 3 (lease slots), 4 (claim-style registry).
     */
    public int schemaVersion() throws SQLException {
        return SchemaVersion.applied(dataSource, table);
    }

    public TableName table() {
        return table;
    }

    private String statusSql(String file) {
        String path = "db/leasebox/status/" + file;
        try (InputStream in = TableName.class.getClassLoader().getResourceAsStream(path)) {
            if (in == null) {
                throw new IllegalStateException("missing resource " + path + " (outbox-drain on the class path?)");
            }
            StringBuilder sql = new StringBuilder();
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                if (!line.trim().startsWith("--")) {
                    sql.append(line).append('\n');
                }
            }
            return sql.toString().replace("${table}", table.qualified());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
