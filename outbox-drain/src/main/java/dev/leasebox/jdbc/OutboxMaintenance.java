package dev.leasebox.jdbc;

import dev.leasebox.jdbc.MaintenanceBatches.Where;
import dev.leasebox.outbox.EmissionStatus;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.LongConsumer;

/**
 * Operations on an outbox table (V1 and V2 applied) beside the drain: redrive dead letters, purge
 * old terminal rows. Each works in batches of its own transactions (one statement each, auto-commit),
 * so it never holds many row locks for long and can run while workers drain the table.
 *
 * <ul>
 *   <li>Nothing is changed on a row under a live claim: one whose {@code claim_expires_at} is in the
 *       future by the database's clock.</li>
 *   <li>{@code fence_high_water} is never written: fences only grow, so a completion of a claim taken
 *       before the redrive stays refused.</li>
 *   <li>Ages are measured by the database's clock: {@code olderThan} is subtracted from its
 *       {@code CURRENT_TIMESTAMP}, read once per operation.</li>
 * </ul>
 *
 * <p>The statements are {@link MaintenanceStatements}'s. Thread-safe.
 */
public final class OutboxMaintenance {

    /** The batch size when none is given. */
    public static final int DEFAULT_BATCH = 500;
    /** The largest batch (ids per statement). */
    public static final int MAX_BATCH = 10_000;

    private final DataSource dataSource;
    private final TableName table;
    private final MaintenanceStatements sql;
    private final MaintenanceBatches batches;

    private OutboxMaintenance(DataSource dataSource, TableName table, MaintenanceStatements sql) {
        this.dataSource = dataSource;
        this.table = table;
        this.sql = sql;
        this.batches = new MaintenanceBatches(sql);
    }

    /** Maintenance of {@code table} in {@code dataSource}; connects once to learn the kind of database. */
    public static OutboxMaintenance on(DataSource dataSource, TableName table) {
        Objects.requireNonNull(dataSource, "dataSource");
        Objects.requireNonNull(table, "table");
        try (Connection c = dataSource.getConnection()) {
            return new OutboxMaintenance(dataSource, table, MaintenanceStatements.of(DatabaseKind.of(c), table));
        } catch (SQLException e) {
            throw new JdbcOutboxException("Cannot reach the outbox database at " + JdbcUrls.describe(dataSource) + ": "
                    + e.getMessage(), e);
        }
    }

    public TableName table() {
        return table;
    }

    /** How many rows an operation would change now, and how many more it leaves alone under a live claim. */
    public record Plan(long matching, long underLiveClaim) {
    }

    // ---- redrive --------------------------------------------------------------------------------

    /**
     * Which terminal entries go back to PENDING: DEAD_LETTERED ones (and FAILED ones with
     * {@link #includingFailed()}), narrowed by every criterion given. With no criterion it is every
     * dead letter: callers that take input from people should ask for one (the CLI asks for
     * {@code --all}).
     *
     * @param ids           only these ids (empty: any)
     * @param type          only this type
     * @param partitionKey  only this partition key
     * @param olderThan     only entries created longer ago than this
     * @param includeFailed FAILED entries too
     */
    public record Redrive(Set<Long> ids, Optional<String> type, Optional<String> partitionKey, Optional<Duration> olderThan,
                          boolean includeFailed) {

        public Redrive {
            ids = Set.copyOf(new TreeSet<>(Objects.requireNonNull(ids, "ids")));
            Objects.requireNonNull(type, "type");
            Objects.requireNonNull(partitionKey, "partitionKey");
            Objects.requireNonNull(olderThan, "olderThan");
            olderThan.ifPresent(OutboxMaintenance::requireNotNegative);
        }

        /** Every dead letter; narrow with the other methods. */
        public static Redrive deadLetters() {
            return new Redrive(Set.of(), Optional.empty(), Optional.empty(), Optional.empty(), false);
        }

        public Redrive ids(java.util.Collection<Long> ids) {
            return new Redrive(Set.copyOf(ids), type, partitionKey, olderThan, includeFailed);
        }

        public Redrive type(String type) {
            return new Redrive(ids, Optional.of(type), partitionKey, olderThan, includeFailed);
        }

        public Redrive partitionKey(String key) {
            return new Redrive(ids, type, Optional.of(key), olderThan, includeFailed);
        }

        public Redrive olderThan(Duration age) {
            return new Redrive(ids, type, partitionKey, Optional.of(age), includeFailed);
        }

        public Redrive includingFailed() {
            return new Redrive(ids, type, partitionKey, olderThan, true);
        }

        /** Whether anything narrows the selection. */
        public boolean isNarrowed() {
            return !ids.isEmpty() || type.isPresent() || partitionKey.isPresent() || olderThan.isPresent();
        }

        Set<EmissionStatus> statuses() {
            return includeFailed ? EnumSet.of(EmissionStatus.DEAD_LETTERED, EmissionStatus.FAILED)
                    : EnumSet.of(EmissionStatus.DEAD_LETTERED);
        }
    }

    /** The dry run: how many entries {@link #redrive} would move now, changing nothing. */
    public Plan planRedrive(Redrive redrive) {
        return run("count the entries to redrive", c -> {
            Instant now = batches.databaseNow(c);
            long matching = 0;
            long held = 0;
            for (List<Long> chunk : idChunks(redrive.ids(), MAX_BATCH)) {
                matching += batches.count(c, redriveWhere(redrive, chunk, now).and(sql.notUnderLiveClaim()));
                held += batches.count(c, redriveWhere(redrive, chunk, now).and(sql.underLiveClaim()));
            }
            return new Plan(matching, held);
        });
    }

    /** {@link #redrive(Redrive, int, LongConsumer)} in batches of {@value #DEFAULT_BATCH}, without progress. */
    public long redrive(Redrive redrive) {
        return redrive(redrive, DEFAULT_BATCH, done -> {
        });
    }

    /**
     * Moves the selected entries back to PENDING, due at once: attempt counts reset, last error and
     * dead-letter reason cleared, fence kept; a row under a live claim is left as it is. Each batch of
     * up to {@code batchSize} rows is one statement in its own transaction.
     *
     * @param progress told the running total after each batch
     * @return the number of entries redriven
     */
    public long redrive(Redrive redrive, int batchSize, LongConsumer progress) {
        requireBatch(batchSize);
        return run("redrive entries", c -> {
            Instant now = batches.databaseNow(c);
            long done = 0;
            for (List<Long> chunk : idChunks(redrive.ids(), MAX_BATCH)) {
                Where where = redriveWhere(redrive, chunk, now).and(sql.notUnderLiveClaim());
                done = batches.inBatches(c, where, batchSize, done, progress, sql::redrive);
            }
            return done;
        });
    }

    private Where redriveWhere(Redrive r, List<Long> ids, Instant now) {
        Where w = Where.of(sql.in("status", r.statuses().size()), r.statuses().stream().map(Enum::name).toList());
        if (!ids.isEmpty()) {
            w = w.and(sql.in("id", ids.size()), ids);
        }
        if (r.type().isPresent()) {
            w = w.and("type = ?", List.of(r.type().get()));
        }
        if (r.partitionKey().isPresent()) {
            w = w.and("partition_key = ?", List.of(r.partitionKey().get()));
        }
        if (r.olderThan().isPresent()) {
            w = w.and("created_at < ?", List.of(now.minus(r.olderThan().get())));
        }
        return w;
    }

    // ---- purge ----------------------------------------------------------------------------------

    /**
     * Which terminal rows to delete: those in {@code statuses} that finished (were delivered; for
     * other statuses, were created) longer ago than {@code olderThan}.
     */
    public record Purge(Set<EmissionStatus> statuses, Duration olderThan) {

        public Purge {
            Objects.requireNonNull(statuses, "statuses");
            Objects.requireNonNull(olderThan, "olderThan");
            if (statuses.isEmpty()) {
                throw new IllegalArgumentException("purge needs at least one status");
            }
            for (EmissionStatus s : statuses) {
                if (!s.isTerminal() && s != EmissionStatus.FAILED) {
                    throw new IllegalArgumentException("purge deletes DELIVERED, DEAD_LETTERED or FAILED rows, not " + s);
                }
            }
            statuses = Set.copyOf(statuses);
            requireNotNegative(olderThan);
        }

        /** DELIVERED rows delivered longer ago than {@code olderThan}. */
        public static Purge delivered(Duration olderThan) {
            return new Purge(Set.of(EmissionStatus.DELIVERED), olderThan);
        }
    }

    /** The dry run: how many rows {@link #purge} would delete now, changing nothing. */
    public Plan planPurge(Purge purge) {
        return run("count the rows to purge", c -> {
            Instant now = batches.databaseNow(c);
            long fence = batches.highestFence(c);
            return new Plan(batches.count(c, purgeWhere(purge, now, fence).and(sql.notUnderLiveClaim())),
                    batches.count(c, purgeWhere(purge, now, 0).and(sql.underLiveClaim())));
        });
    }

    /**
     * How many rows {@code purge} selects but keeps because they carry the table's highest fence: the
     * floor a coordinator's fences are raised to after it lost its data must never go down.
     */
    public long keptAtHighestFence(Purge purge) {
        return run("count the rows kept for their fence", c -> {
            Instant now = batches.databaseNow(c);
            long fence = batches.highestFence(c);
            return fence == 0 ? 0L : batches.count(c, purgeWhere(purge, now, 0)
                    .and("fence_high_water >= ?", List.of(fence)).and(sql.notUnderLiveClaim()));
        });
    }

    /** {@link #purge(Purge, int, LongConsumer)} in batches of {@value #DEFAULT_BATCH}, without progress. */
    public long purge(Purge purge) {
        return purge(purge, DEFAULT_BATCH, done -> {
        });
    }

    /**
     * Deletes the selected rows in id order, each batch of up to {@code batchSize} one statement in
     * its own transaction. The row that carries the table's highest fence is kept (with any others at
     * that fence), so the highest fence a coordinator's floor is raised to never goes down.
     *
     * @param progress told the running total after each batch
     * @return the number of rows deleted
     */
    public long purge(Purge purge, int batchSize, LongConsumer progress) {
        requireBatch(batchSize);
        return run("purge rows", c -> {
            Instant now = batches.databaseNow(c);
            long fence = batches.highestFence(c);
            Where where = purgeWhere(purge, now, fence).and(sql.notUnderLiveClaim());
            return batches.inBatches(c, where, batchSize, 0, progress, sql::delete);
        });
    }

    private Where purgeWhere(Purge p, Instant now, long highestFence) {
        List<EmissionStatus> statuses = p.statuses().stream().sorted().toList();
        Where w = Where.of(sql.in("status", statuses.size()), statuses.stream().map(Enum::name).toList())
                .and(sql.finishedAt() + " < ?", List.of(now.minus(p.olderThan())));
        return highestFence > 0 ? w.and("fence_high_water < ?", List.of(highestFence)) : w;
    }

    // ---- shared ---------------------------------------------------------------------------------

    /** The id list in sorted chunks of at most {@code size}; one empty chunk for "any id". */
    private static List<List<Long>> idChunks(Set<Long> ids, int size) {
        if (ids.isEmpty()) {
            return List.of(List.of());
        }
        List<Long> sorted = new ArrayList<>(new TreeSet<>(ids));
        List<List<Long>> chunks = new ArrayList<>();
        for (int i = 0; i < sorted.size(); i += size) {
            chunks.add(sorted.subList(i, Math.min(sorted.size(), i + size)));
        }
        return chunks;
    }

    private static void requireBatch(int batchSize) {
        if (batchSize < 1 || batchSize > MAX_BATCH) {
            throw new IllegalArgumentException("the batch size must be in 1.." + MAX_BATCH + ", was " + batchSize);
        }
    }

    private static void requireNotNegative(Duration age) {
        if (age.isNegative()) {
            throw new IllegalArgumentException("an age must not be negative, was " + age);
        }
    }

    private interface Work<T> {
        T run(Connection c) throws SQLException;
    }

    private <T> T run(String what, Work<T> work) {
        try (Connection c = dataSource.getConnection()) {
            boolean autoCommit = c.getAutoCommit();
            c.setAutoCommit(true); // each statement its own transaction: no batch waits on another's locks
            try {
                return work.run(c);
            } finally {
                c.setAutoCommit(autoCommit);
            }
        } catch (SQLException e) {
            throw new JdbcOutboxException("Cannot " + what + " of " + table + " at " + JdbcUrls.describe(dataSource)
                    + ": " + e.getMessage(), e);
        }
    }
}
