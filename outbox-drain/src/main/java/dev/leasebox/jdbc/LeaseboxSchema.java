package dev.leasebox.jdbc;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import dev.leasebox.jdbc.dialect.SqlDialect;
import dev.leasebox.jdbc.lease.ClaimStyleRegistry;
import dev.leasebox.jdbc.store.PostgreSqlCommitListener;

/**
 * The outbox table's versioned migration scripts, for a database kind and a table name. The drain
 * never creates or alters a schema by itself: hosts apply these with their own migration tool
 * (the files under {@code db/leasebox/<database>/} are Flyway-named, with placeholders
 * {@code ${table}} and {@code ${table_name}}), or explicitly through {@link #apply} (tests and
 * {@code leasebox schema --apply}).
 *
 * <ul>
 *   <li>V1 creates the table as a selection-only (pre-claim) drain needs it.</li>
 *   <li>V2 is the explicit host migration for claim leases: claim columns, {@code fence_high_water},
 *       the claim-candidate index and the token sequence.</li>
 *   <li>V3 adds partition leases: the generated {@code lease_slot} column, the slot and key-order
 *       indexes, and the {@code _lease_slots}, {@code _workers} and {@code _leases} tables. Its extra
 *       placeholder {@code ${slot_count}} is the number of slots ({@link #DEFAULT_SLOT_COUNT} unless
 *       given), fixed when the script is applied.</li>
 *   <li>V4 adds the {@code _claim_styles} registry, which keeps workers whose claims cannot exclude each
 *       other off one table ({@link ClaimStyleRegistry}).</li>
 *   <li>V5 replaces the claim-candidate index by the claim-queue index, keyed by id alone (PostgreSQL:
 *       no column a claim writes is in any index, so claims are HOT updates), and sets the table's
 *       fillfactor to 50 so that a claimed row's new version finds room on its page. On H2 it only
 *       renames the index.</li>
 *   <li>V6 makes keys compare byte for byte on MariaDB: its tables move to the NO PAD collation
 *       {@code utf8mb4_nopad_bin} ({@code utf8mb4_bin} takes {@code 'k'} and {@code 'k '} for one key). It
 *       has nothing to do on PostgreSQL and H2, whose text equality is byte-wise already.</li>
 *   <li>V7 wakes drains at commit on PostgreSQL: a deferred {@code AFTER INSERT} constraint trigger
 *       ({@code <table>_wake_up}) sends a {@code NOTIFY} at commit, one transaction per table at a time,
 *       on a channel named after the table
 *       ({@link PostgreSqlCommitListener}). {@code ALTER TABLE … DISABLE TRIGGER <table>_wake_up} turns it off
 *       and the table stays at V7. It has nothing to do on MariaDB and H2, which have no such notification.</li>
 *   <li>V8 adds {@code taken_over} to the {@code _claim_styles} registry: its guard row holds the table's count
 *       of claims taken over from claims that expired unfinished, which workers add in their registry
 *       heartbeat ({@link ClaimStyleRegistry}) and any console reads (decision 0046).</li>
 * </ul>
 *
 * <p>PostgreSQL applies each script in one transaction. MariaDB (and H2) commit every DDL statement on
 * their own, so an interrupted apply can leave part of a script behind; every MariaDB statement can run
 * again, and {@link SchemaVersion} counts a MariaDB script as applied only when all of its objects exist,
 * so applying again completes it.
 *
 * <p>What is applied is the scripts of the database behind the connection, read from its JDBC metadata. A
 * schema built for a named {@link DatabaseKind} (to print or hand its scripts to a migration tool) refuses,
 * before any statement, to apply to another database.
 */
public final class LeaseboxSchema {

    /** One versioned script. */
    public record Migration(int version, String resource, String sql) {
        /** The script's file name, as operators see it in messages. */
        public String fileName() {
            return resource.substring(resource.lastIndexOf('/') + 1);
        }
    }

    public static final String V1_FILE = "V1__create_leasebox_outbox.sql";
    public static final String V2_FILE = "V2__add_claim_leases.sql";
    public static final String V3_FILE = "V3__add_lease_slots.sql";
    public static final String V4_FILE = "V4__add_claim_styles.sql";
    static final String V5_FILE = "V5__lean_claim_queue.sql";
    static final String V6_FILE = "V6__keys_compare_as_bytes.sql";
    static final String V7_FILE = "V7__wake_up_at_commit.sql";
    public static final String V8_FILE = "V8__count_takeovers.sql";

    /** The newest migration's version. */
    public static final int LATEST_VERSION = 8;

    /** The tables the migrations create beside the outbox table, by the suffix of their names. */
    public static final List<String> COMPANION_TABLES = List.of("_workers", "_leases", "_lease_slots", "_claim_styles");

    /** The sequences the migrations create beside the outbox table, by the suffix of their names. */
    public static final List<String> COMPANION_SEQUENCES = List.of("_claim_token_seq", "_lease_fence_seq");

    /** Lease slots created by V3 unless another count is given. */
    public static final int DEFAULT_SLOT_COUNT = 256;

    /** The largest slot count V3 accepts. */
    public static final int MAX_SLOT_COUNT = 65_536;

    private final DatabaseKind kind; // null: the database of the connection applied to
    private final TableName table;
    private final int slotCount;

    /** The scripts of {@code table}, for the database they are applied to. */
    public LeaseboxSchema(TableName table) {
        this(table, DEFAULT_SLOT_COUNT);
    }

    /** As {@link #LeaseboxSchema(TableName)}, with V3 creating {@code slotCount} lease slots (1..65536). */
    public LeaseboxSchema(TableName table, int slotCount) {
        this(table, slotCount, null);
    }

    /** {@code kind}'s scripts of {@code table}: what {@link #migrations()} lists; applied to {@code kind} only. */
    public LeaseboxSchema(DatabaseKind kind, TableName table) {
        this(kind, table, DEFAULT_SLOT_COUNT);
    }

    /** As {@link #LeaseboxSchema(DatabaseKind, TableName)}, with V3 creating {@code slotCount} lease slots (1..65536). */
    public LeaseboxSchema(DatabaseKind kind, TableName table, int slotCount) {
        this(table, slotCount, Objects.requireNonNull(kind, "kind"));
    }

    private LeaseboxSchema(TableName table, int slotCount, DatabaseKind kind) {
        this.kind = kind;
        this.table = Objects.requireNonNull(table, "table");
        if (slotCount < 1 || slotCount > MAX_SLOT_COUNT) {
            throw new IllegalArgumentException("the slot count must be in 1.." + MAX_SLOT_COUNT + ", was " + slotCount);
        }
        this.slotCount = slotCount;
    }

    /** The resource path of a script, e.g. {@code db/leasebox/postgresql/V2__add_claim_leases.sql}. */
    public static String resourcePath(DatabaseKind kind, String fileName) {
        return "db/leasebox/" + kind.folder() + "/" + fileName;
    }

    /**
     * Every migration in order, placeholders substituted with the validated table name.
     *
     * @throws IllegalStateException for a schema built without a {@link DatabaseKind}, which has no scripts
     *         until it meets a database
     */
    public List<Migration> migrations() {
        if (kind == null) {
            throw new IllegalStateException("the scripts of " + table + " depend on the database: build the schema with "
                    + "new LeaseboxSchema(DatabaseKind.POSTGRESQL|MARIADB|H2, table) to read them");
        }
        return migrations(kind);
    }

    private List<Migration> migrations(DatabaseKind kind) {
        return List.of(migration(kind, 1, V1_FILE), migration(kind, 2, V2_FILE), migration(kind, 3, V3_FILE),
                migration(kind, 4, V4_FILE), migration(kind, 5, V5_FILE), migration(kind, 6, V6_FILE),
                migration(kind, 7, V7_FILE), migration(kind, 8, V8_FILE));
    }

    private Migration migration(DatabaseKind kind, int version, String file) {
        String path = resourcePath(kind, file);
        return new Migration(version, path, substituted(SqlDialect.resource(path)));
    }

    /**
     * The script with its placeholders substituted in the statements; comment lines keep them, since
     * they explain the placeholders themselves ("${table} is the validated table name").
     */
    private String substituted(String script) {
        StringBuilder sql = new StringBuilder(script.length() + 64);
        script.lines().forEach(line -> sql.append(line.stripLeading().startsWith("--") ? line
                : table.substituteInto(line).replace("${slot_count}", Integer.toString(slotCount))).append('\n'));
        return sql.toString();
    }

    /**
     * The statements that drop the outbox table and every table and sequence the migrations create
     * beside it ({@link #COMPANION_TABLES}, {@link #COMPANION_SEQUENCES}), companions first. Never run by
     * Leasebox: for an operator removing an outbox, after its last worker stopped. Without a
     * {@link DatabaseKind}, PostgreSQL's V7 trigger function is not among them.
     */
    public List<String> dropStatements() {
        List<String> statements = new ArrayList<>();
        COMPANION_TABLES.forEach(suffix -> statements.add("DROP TABLE IF EXISTS " + table.substituteInto("${table}" + suffix) + ";"));
        statements.add("DROP TABLE IF EXISTS " + table.qualified() + ";");
        COMPANION_SEQUENCES.forEach(suffix -> statements.add("DROP SEQUENCE IF EXISTS " + table.substituteInto("${table}" + suffix) + ";"));
        if (kind == DatabaseKind.POSTGRESQL) {
            statements.add("DROP FUNCTION IF EXISTS " + table.substituteInto("${table}_wake_up") + "();"); // V7's trigger function
        }
        return statements;
    }

    /**
     * Applies the migrations with version in {@code fromVersion..toVersion}, each in a transaction of
     * its own where the database allows transactional DDL (PostgreSQL does; H2 and MariaDB commit each
     * statement, and an interrupted MariaDB script is completed by applying it again).
     */
    public void apply(DataSource dataSource, int fromVersion, int toVersion) {
        try (Connection c = dataSource.getConnection()) {
            apply(c, fromVersion, toVersion);
        } catch (SQLException e) {
            throw new JdbcOutboxException("Cannot apply the outbox schema to " + table + " at "
                    + JdbcUrls.describe(dataSource) + ": " + e.getMessage(), e);
        }
    }

    /** Applies every migration (V1 to V8) to an empty schema. */
    public void applyAll(DataSource dataSource) {
        apply(dataSource, 1, LATEST_VERSION);
    }

    /**
     * Brings the table to {@link #LATEST_VERSION}: applies the migrations it lacks, none when it is there
     * already (a program may call this at every start). Returns the version the table was at before.
     */
    public int migrate(DataSource dataSource) {
        int applied;
        try {
            applied = SchemaVersion.applied(dataSource, table);
        } catch (SQLException e) {
            throw new JdbcOutboxException("Cannot read the outbox schema of " + table + " at "
                    + JdbcUrls.describe(dataSource) + ": " + e.getMessage(), e);
        }
        if (applied < LATEST_VERSION) {
            apply(dataSource, applied + 1, LATEST_VERSION);
        }
        return applied;
    }

    /**
     * As {@link #apply(DataSource, int, int)}, on the caller's connection (restored to its auto-commit mode).
     *
     * @throws JdbcOutboxException before any statement, when the connection reaches another database than
     *         the one this schema was built for, or one Leasebox does not support
     */
    public void apply(Connection c, int fromVersion, int toVersion) throws SQLException {
        DatabaseKind target = DatabaseKind.of(c);
        if (kind != null && kind != target) {
            throw new JdbcOutboxException("The " + kind + " scripts of the outbox table " + table + " cannot be applied to "
                    + target + " at " + JdbcUrls.redact(c.getMetaData().getURL()) + ": build the schema for that database "
                    + "(new LeaseboxSchema(DatabaseKind." + target + ", table)), or without a kind (new LeaseboxSchema(table)) "
                    + "to apply the scripts of whichever database it reaches");
        }
        boolean autoCommit = c.getAutoCommit();
        SQLException failure = null;
        try {
            c.setAutoCommit(false);
            for (Migration m : migrations(target)) {
                if (m.version() < fromVersion || m.version() > toVersion) {
                    continue;
                }
                try (Statement st = c.createStatement()) {
                    for (String statement : statements(m.sql())) {
                        st.execute(statement);
                    }
                    c.commit();
                } catch (SQLException e) {
                    SQLException failed = new SQLException(m.fileName() + " failed: " + e.getMessage()
                            + (target == DatabaseKind.MARIADB ? " (MariaDB commits each statement of a script on its"
                            + " own: once the cause is fixed, apply again and the script is completed)" : ""),
                            e.getSQLState(), e);
                    try {
                        c.rollback();
                    } catch (SQLException rollback) {
                        failed.addSuppressed(rollback);
                    }
                    failure = failed;
                    throw failed;
                }
            }
        } finally {
            try {
                c.setAutoCommit(autoCommit);
            } catch (SQLException restore) {
                // A connection lost mid-apply cannot be restored: the script's failure is what to report.
                if (failure == null) {
                    throw restore;
                }
                failure.addSuppressed(restore);
            }
        }
    }

    /**
     * A script's statements: split at semicolons ending a line outside a {@code $$}-quoted body (a PostgreSQL
     * function's), comment lines dropped.
     */
    static List<String> statements(String script) {
        List<String> out = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        boolean inBody = false;
        for (String line : script.split("\n")) {
            String trimmed = line.trim();
            if (trimmed.startsWith("--") || trimmed.isEmpty()) {
                continue;
            }
            current.append(line).append('\n');
            for (int at = line.indexOf("$$"); at >= 0; at = line.indexOf("$$", at + 2)) {
                inBody = !inBody;
            }
            if (trimmed.endsWith(";") && !inBody) {
                String sql = current.toString().trim();
                out.add(sql.substring(0, sql.length() - 1));
                current.setLength(0);
            }
        }
        if (!current.toString().isBlank()) {
            out.add(current.toString().trim());
        }
        return out;
    }
}
