package dev.leasebox.chaos.harness;

import com.zaxxer.hikari.HikariDataSource;
import dev.leasebox.chaos.check.FinalState;
import dev.leasebox.chaos.evidence.AuditRecord;
import dev.leasebox.chaos.evidence.Delivery;
import dev.leasebox.chaos.evidence.Evidence;
import dev.leasebox.chaos.worker.ChaosSql;
import dev.leasebox.jdbc.DatabaseKind;
import dev.leasebox.jdbc.JdbcUrls;
import dev.leasebox.jdbc.LeaseboxSchema;
import dev.leasebox.jdbc.OutboxWriter;
import dev.leasebox.jdbc.TableName;
import dev.leasebox.outbox.OutboxMessage;
import dev.leasebox.provider.JdbcInboxProvider;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * One run's outbox on PostgreSQL: a fresh schema (outbox table from Leasebox's own migrations, and
 * the jdbc-inbox table the workers create there), the workload enqueued, and the final state read
 * back for the checker. {@link #close()} drops the schema unless asked to keep it.
 */
public final class OutboxDatabase implements AutoCloseable {

    private final String baseUrl;
    private final String schema;
    private final TableName table;
    private final HikariDataSource dataSource;
    private final boolean keep;
    private final int aggregates;

    private OutboxDatabase(String baseUrl, String schema, boolean keep, int aggregates) {
        this.baseUrl = baseUrl;
        this.schema = schema;
        this.table = new TableName(schema, "leasebox_outbox");
        this.keep = keep;
        this.aggregates = aggregates;
        this.dataSource = PooledDataSources.pooled(workerUrlFor(baseUrl, schema), 3);
    }

    /**
     * Creates a schema {@code chaos_<random>} at {@code baseUrl} (e.g.
     * {@code jdbc:postgresql://127.0.0.1:5432/test?user=postgres}) and applies the outbox migrations, V1 to
     * V3 (V3: lease slots, 256 of them, for partition leases). Entries are spread over {@code aggregates}
     * partition keys.
     */
    public static OutboxDatabase create(String baseUrl, boolean keep, int aggregates) {
        String schema = "chaos_" + Long.toHexString(ThreadLocalRandom.current().nextLong() & 0xffffffffffL);
        try (HikariDataSource admin = PooledDataSources.pooled(baseUrl, 1);
             Connection c = admin.getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE SCHEMA " + schema);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create schema " + schema + " at " + JdbcUrls.redact(baseUrl)
                    + ": " + e.getMessage(), e);
        }
        OutboxDatabase db = new OutboxDatabase(baseUrl, schema, keep, aggregates);
        new LeaseboxSchema(DatabaseKind.POSTGRESQL, db.table).applyAll(db.dataSource);
        // The inbox table, made once here: workers starting together would race PostgreSQL's
        // CREATE TABLE IF NOT EXISTS (a unique violation on pg_type) and one would exit.
        new JdbcInboxProvider(db.dataSource);
        db.installEvidence();
        return db;
    }

    /** The audit and deliveries tables and their triggers ({@code install_evidence.sql}), in the run's schema. */
    private void installEvidence() {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            s.execute(sql("install_evidence.sql"));
        } catch (SQLException e) {
            throw new IllegalStateException("cannot install the audit and deliveries triggers in " + schema + ": "
                    + e.getMessage(), e);
        }
    }

    private String sql(String name) {
        return ChaosSql.load(name, table.qualified()).replace("${schema}", schema);
    }

    /**
     * Writes {@code audit.jsonl}, {@code deliveries.jsonl} and {@code final.jsonl} ({@code end}, as the checker
     * judged it) into {@code dir}, and returns what it wrote.
     */
    public Evidence.Exported exportEvidence(Path dir, FinalState end) {
        return exportEvidence(dir, end, null);
    }

    /**
     * As {@link #exportEvidence(Path, FinalState)}, with the deliveries a downstream other than the jdbc-inbox
     * received ({@code fromDownstream}, e.g. a Kafka topic read back) instead of the inbox's; null for the inbox's.
     */
    public Evidence.Exported exportEvidence(Path dir, FinalState end, List<Delivery> fromDownstream) {
        List<AuditRecord> audit = new ArrayList<>();
        List<Delivery> deliveries = new ArrayList<>();
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            s.setFetchSize(1000);
            try (ResultSet rs = s.executeQuery(sql("export_audit.sql"))) {
                while (rs.next()) {
                    audit.add(new AuditRecord(rs.getLong("seq"), rs.getLong("entry_id"), rs.getLong("txid"),
                            rs.getLong("at_micros"), rs.getString("old_status"), rs.getString("new_status"),
                            nullableLong(rs, "old_claim_token"), nullableLong(rs, "new_claim_token"),
                            rs.getString("old_claim_owner"), rs.getString("new_claim_owner"),
                            nullableLong(rs, "old_expires_micros"), nullableLong(rs, "new_expires_micros"),
                            nullableLong(rs, "old_fence_high_water"), nullableLong(rs, "new_fence_high_water")));
                }
            }
            try (ResultSet rs = s.executeQuery(sql("export_deliveries.sql"))) {
                if (fromDownstream != null) {
                    deliveries.addAll(fromDownstream);
                }
                while (fromDownstream == null && rs.next()) {
                    deliveries.add(new Delivery(rs.getLong("seq"), rs.getString("idempotency_key"), rs.getLong("entry_id"),
                            nullableLong(rs, "fence"), rs.getString("worker"), rs.getLong("txid"),
                            rs.getLong("received_micros")));
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot export the audit and deliveries of " + schema + ": " + e.getMessage(), e);
        }
        Evidence.writeAudit(dir, audit);
        Evidence.writeDeliveries(dir, deliveries);
        Evidence.writeFinal(dir, end);
        return new Evidence.Exported(audit, deliveries);
    }

    private static Long nullableLong(ResultSet rs, String column) throws SQLException {
        long v = rs.getLong(column);
        return rs.wasNull() ? null : v;
    }

    private static String workerUrlFor(String baseUrl, String schema) {
        return baseUrl + (baseUrl.contains("?") ? "&" : "?") + "currentSchema=" + schema;
    }

    /** The URL workers connect with: the run's schema first on the search path (the inbox lands there). */
    public String workerUrl() {
        return workerUrlFor(baseUrl, schema);
    }

    /**
     * {@link #workerUrl()} naming the connection {@code <owner>@<schema>}: the deliveries audit records the owner as
     * the worker, and {@link #terminateWorkerConnections()} finds this run's workers by the suffix (other runs may
     * share the server and the owner names).
     */
    public String workerUrl(String owner) {
        return workerUrl() + "&ApplicationName=" + java.net.URLEncoder.encode(owner + "@" + schema, StandardCharsets.UTF_8);
    }

    /**
     * {@code pg_terminate_backend} on every connection of this run's workers (not the harness's own): their
     * statements in flight fail, their transactions roll back. Returns how many were terminated.
     */
    public int terminateWorkerConnections() {
        try (Connection c = dataSource.getConnection();
             java.sql.PreparedStatement s = c.prepareStatement(ChaosSql.load("terminate_workers.sql", table.qualified()))) {
            s.setString(1, "%@" + schema);
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot terminate the workers' connections to " + schema + ": " + e.getMessage(), e);
        }
    }

    public TableName table() {
        return table;
    }

    public String schema() {
        return schema;
    }

    /**
     * Enqueues {@code count} entries in one transaction; idempotency keys {@code chaos-<n>} from {@code first},
     * partition keys {@code aggregate-<n mod aggregates>}. One producer, one transaction at a time: each key's
     * ids are committed in enqueue order, which is the order {@code --ordered} promises.
     */
    public void enqueue(int first, int count) {
        OutboxWriter writer = OutboxWriter.of(table, Clock.systemUTC());
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            for (int i = first; i < first + count; i++) {
                writer.enqueue(c, OutboxMessage.of("chaos.event", ("{\"n\":" + i + "}").getBytes(StandardCharsets.UTF_8))
                        .withIdempotencyKey("chaos-" + i).withPartitionKey("aggregate-" + (i % aggregates)));
            }
            c.commit();
            c.setAutoCommit(true);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot enqueue the workload into " + table + ": " + e.getMessage(), e);
        }
    }

    /** Rows not DELIVERED or DEAD_LETTERED yet. */
    public long outstanding() {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery(ChaosSql.load("outstanding.sql", table.qualified()))) {
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot count outstanding rows of " + table + ": " + e.getMessage(), e);
        }
    }

    /** The outbox and the inbox as they are now. */
    public FinalState finalState() {
        List<FinalState.Row> rows = new ArrayList<>();
        Map<String, FinalState.Received> inbox = new HashMap<>();
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            try (ResultSet rs = s.executeQuery(ChaosSql.load("final_outbox.sql", table.qualified()))) {
                while (rs.next()) {
                    long token = rs.getLong("claim_token");
                    boolean noToken = rs.wasNull();
                    rows.add(new FinalState.Row(rs.getLong("id"), rs.getString("idempotency_key"), rs.getString("status"),
                            rs.getInt("attempt_count"), rs.getLong("fence_high_water"), noToken ? 0 : token,
                            rs.getString("partition_key")));
                }
            }
            if (hasInbox(c)) {
                try (ResultSet rs = s.executeQuery(ChaosSql.load("final_inbox.sql", table.qualified()))) {
                    while (rs.next()) {
                        inbox.put(rs.getString("idempotency_key"), new FinalState.Received(rs.getString("idempotency_key"),
                                rs.getLong("entry_id"), rs.getInt("deliveries"), rs.getLong("last_fence"),
                                rs.getLong("first_seq")));
                    }
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read the final state of " + table + ": " + e.getMessage(), e);
        }
        return new FinalState(rows, inbox);
    }

    private boolean hasInbox(Connection c) throws SQLException {
        try (ResultSet rs = c.getMetaData().getTables(null, schema, "leasebox_inbox", null)) {
            return rs.next();
        }
    }

    @Override
    public void close() {
        try {
            if (!keep) {
                try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
                    s.execute("DROP SCHEMA " + schema + " CASCADE");
                } catch (SQLException e) {
                    System.err.println("chaos: could not drop schema " + schema + " (drop it by hand): " + e.getMessage());
                }
            }
        } finally {
            dataSource.close();
        }
    }
}
