package dev.leasebox.jmh;

import com.zaxxer.hikari.HikariDataSource;
import dev.leasebox.jdbc.DatabaseKind;
import dev.leasebox.jdbc.LeaseboxSchema;
import dev.leasebox.jdbc.TableName;
import dev.leasebox.jdbc.store.JdbcOutboxStore;
import dev.leasebox.outbox.CandidateQuery;
import dev.leasebox.outbox.CandidateStripe;
import dev.leasebox.outbox.ClaimSelection;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The leased claim path's candidate read on PostgreSQL, one call at a time: the plain read (a random
 * sample from the oldest {@code batch × (W + 1)} ids) against the striped one (the ids of a window
 * {@code W} times the sample, read by the same statement, the own stripe's oldest picked out in Java),
 * beside a bare
 * {@code SELECT 1} round trip, all in the same run. The table looks like a busy outbox: 100,000
 * delivered rows of history, a backlog of 20,000, and the oldest {@code (W − 1) × batch} rows of the
 * backlog claimed by other workers (in flight), analyzed.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class CandidateReadBenchmark {

    private static final int BATCH = 100;
    private static final int OVER_ASK = 2;

    /** Workers sharing the table: the stripe count, and the spread of the plain read. */
    @Param({"4", "8"})
    int workers;

    private HikariDataSource pool;
    private String schema;
    private JdbcOutboxStore store;
    private CandidateQuery plain;
    private CandidateQuery striped;

    @Setup(Level.Trial)
    public void fillTheOutbox() {
        pool = Servers.postgres(2);
        schema = "leasebox_jmh_" + Long.toHexString(System.nanoTime());
        Servers.execute(pool, "CREATE SCHEMA " + schema);
        TableName table = new TableName(schema, "outbox");
        new LeaseboxSchema(DatabaseKind.POSTGRESQL, table).applyAll(pool);
        String t = table.qualified();
        Servers.execute(pool,
                "INSERT INTO " + t + " (idempotency_key, type, payload, status, created_at, delivered_at)"
                        + " SELECT 'h' || g, 'jmh', '\\x00', 'DELIVERED', now(), now() FROM generate_series(1, 100000) g",
                "INSERT INTO " + t + " (idempotency_key, type, payload, status, created_at)"
                        + " SELECT 'b' || g, 'jmh', '\\x00', 'PENDING', now() FROM generate_series(1, 20000) g",
                "UPDATE " + t + " SET claim_owner = 'other', claimed_at = now(), claim_expires_at = now() + interval '1 hour',"
                        + " claim_token = id, fence_high_water = id WHERE id IN (SELECT id FROM " + t
                        + " WHERE status = 'PENDING' ORDER BY id LIMIT " + (workers - 1) * BATCH + ")",
                "ANALYZE " + t);
        store = JdbcOutboxStore.builder(pool).table(table).candidateSpread(workers + 1).open();
        plain = CandidateQuery.of(ClaimSelection.ELIGIBLE, BATCH, OVER_ASK);
        striped = new CandidateQuery(ClaimSelection.ELIGIBLE, BATCH, OVER_ASK, new CandidateStripe(1, workers), Set.of());
    }

    @TearDown(Level.Trial)
    public void dropTheOutbox() {
        Servers.execute(pool, "DROP SCHEMA " + schema + " CASCADE");
        pool.close();
    }

    /** Baseline: one statement's round trip through the same pool. */
    @Benchmark
    public int selectOne() throws SQLException {
        try (Connection c = pool.getConnection(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT 1")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    @Benchmark
    public List<Long> plainCandidateRead() {
        return store.findClaimCandidateIds(plain);
    }

    @Benchmark
    public List<Long> stripedCandidateRead() {
        return store.findClaimCandidateIds(striped);
    }
}
