package dev.leasebox.spring;

import dev.leasebox.jdbc.DatabaseKind;
import dev.leasebox.jdbc.JdbcOutboxException;
import dev.leasebox.jdbc.JdbcUrls;
import dev.leasebox.jdbc.LeaseboxSchema;
import dev.leasebox.jdbc.SchemaVersion;
import dev.leasebox.jdbc.TableName;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * The outbox table's migrations when the drain starts: with {@code leasebox.schema.apply=true} the ones the
 * table lacks are applied ({@link LeaseboxSchema}); otherwise a table without every migration fails the start
 * with a {@link MissingMigrationsException}, which names the migrations, this property and the CLI command.
 * It runs when the context starts, after every bean is created: a migration tool's beans (Flyway, Liquibase)
 * have migrated by then.
 */
record SchemaAtStart(TableName table, boolean apply, int slots) {

    private static final Logger LOG = LoggerFactory.getLogger(SchemaAtStart.class);

    /**
     * Applying concurrently with another instance: a failed apply is tried again only after the other made progress,
     * so at most once per migration.
     */
    private static final int APPLY_ATTEMPTS = LeaseboxSchema.LATEST_VERSION;

    static SchemaAtStart from(LeaseboxProperties.Schema properties, TableName table) {
        if (properties.getSlots() < 1 || properties.getSlots() > LeaseboxSchema.MAX_SLOT_COUNT) {
            throw new LeaseboxConfigurationException("leasebox.schema.slots must be in 1.." + LeaseboxSchema.MAX_SLOT_COUNT
                    + ", was " + properties.getSlots());
        }
        return new SchemaAtStart(table, properties.isApply(), properties.getSlots());
    }

    /** Brings the table to the newest migration, or refuses it; a table that has every migration is left alone. */
    void prepare(DataSource dataSource) {
        String where = JdbcUrls.describe(dataSource);
        Applied applied = read(dataSource, where);
        if (applied.version() >= LeaseboxSchema.LATEST_VERSION) {
            return;
        }
        if (!apply) {
            throw new MissingMigrationsException(table, applied.kind(), applied.version(), where);
        }
        for (int attempt = 1; ; attempt++) {
            LeaseboxSchema schema = new LeaseboxSchema(applied.kind(), table, slots);
            try {
                schema.apply(dataSource, applied.version() + 1, LeaseboxSchema.LATEST_VERSION);
                LOG.info("Leasebox applied V{} to V{} to outbox table {} at {} (leasebox.schema.apply=true)",
                        applied.version() + 1, LeaseboxSchema.LATEST_VERSION, table, where);
                return;
            } catch (JdbcOutboxException e) {
                // another instance applying at the same time fails ours (PostgreSQL: the table exists already)
                Applied now = read(dataSource, where);
                if (now.version() >= LeaseboxSchema.LATEST_VERSION) {
                    return;
                }
                if (now.version() <= applied.version() || attempt == APPLY_ATTEMPTS) {
                    throw e;
                }
                applied = now;
            }
        }
    }

    private record Applied(DatabaseKind kind, int version) {
    }

    private Applied read(DataSource dataSource, String where) {
        Connection connection;
        try {
            connection = dataSource.getConnection();
        } catch (SQLException | RuntimeException e) {
            throw new JdbcOutboxException("Cannot reach the outbox database at " + where + ": " + JdbcUrls.rootMessage(e)
                    + " (check the URL, that the database runs and accepts this user)", e);
        }
        try (connection) {
            DatabaseKind kind = DatabaseKind.of(connection);
            return new Applied(kind, SchemaVersion.applied(connection, table, kind));
        } catch (SQLException e) {
            throw new JdbcOutboxException("Cannot read the migrations of outbox table " + table + " at " + where + ": "
                    + JdbcUrls.rootMessage(e), e);
        }
    }
}
