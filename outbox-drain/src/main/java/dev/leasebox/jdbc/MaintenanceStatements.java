package dev.leasebox.jdbc;

import java.util.Collections;
import java.util.Objects;

/**
 * The SQL of {@link OutboxMaintenance} (redrive and purge), in one place. The statements keep to SQL
 * that PostgreSQL, H2 and MariaDB all accept: {@code CURRENT_TIMESTAMP}, {@code IN} lists of
 * placeholders, {@code LIMIT}, no {@code RETURNING}, no array parameters and no subselect on the
 * table being changed. A database that needs other text overrides the method in a subclass and
 * returns it from {@link #of}.
 *
 * <p>Every {@code where} argument is a condition built by {@link OutboxMaintenance} from fixed
 * column names and {@code ?} placeholders; the only names placed into the text are the validated
 * table name and those columns.
 */
public class MaintenanceStatements {

    protected final TableName table;

    protected MaintenanceStatements(TableName table) {
        this.table = Objects.requireNonNull(table, "table");
    }

    /** The statements for {@code kind}: the standard ones unless a database needs its own. */
    public static MaintenanceStatements of(DatabaseKind kind, TableName table) {
        Objects.requireNonNull(kind, "kind");
        return new MaintenanceStatements(table);
    }

    /** One row, one column: the database's current time. */
    public String databaseNow() {
        return "SELECT CURRENT_TIMESTAMP";
    }

    /** A row no live claim holds, by the database's clock. */
    public String notUnderLiveClaim() {
        return "(claim_expires_at IS NULL OR claim_expires_at <= CURRENT_TIMESTAMP)";
    }

    /** A row a live claim holds, by the database's clock. */
    public String underLiveClaim() {
        return "claim_expires_at > CURRENT_TIMESTAMP";
    }

    /** The time a terminal row became terminal, as well as the row records it. */
    public String finishedAt() {
        return "COALESCE(delivered_at, created_at)";
    }

    /** {@code column IN (?, …)} with {@code n} placeholders. */
    public String in(String column, int n) {
        if (n < 1) {
            throw new IllegalArgumentException("an IN list needs at least one element");
        }
        return column + " IN (" + String.join(", ", Collections.nCopies(n, "?")) + ")";
    }

    /** How many rows match. */
    public String count(String where) {
        return "SELECT COUNT(*) FROM " + table.qualified() + " WHERE " + where;
    }

    /** The highest fence on any row. */
    public String highestFence() {
        return "SELECT COALESCE(MAX(fence_high_water), 0) FROM " + table.qualified();
    }

    /** The next {@code limit} ids that match, in id order, above the bound last parameter. */
    public String nextIds(String where, int limit) {
        return "SELECT id FROM " + table.qualified() + " WHERE " + where + " AND id > ? ORDER BY id LIMIT " + limit;
    }

    /**
     * Back to PENDING, due now: attempt counts reset, errors and any expired claim cleared; the
     * fence_high_water is kept (fences only grow), so completions of earlier claims stay refused.
     * The ids' placeholders come first, then {@code where}'s.
     */
    public String redrive(int ids, String where) {
        return "UPDATE " + table.qualified() + " SET status = 'PENDING', attempt_count = 0, claim_attempt_count = 0, "
                + "next_attempt_at = NULL, delivered_at = NULL, last_error = NULL, dead_letter_reason = NULL, "
                + "claim_owner = NULL, claimed_at = NULL, claim_expires_at = NULL, claim_token = NULL "
                + "WHERE " + in("id", ids) + " AND " + where;
    }

    /** Deletes the listed rows that still match {@code where}; the ids' placeholders come first. */
    public String delete(int ids, String where) {
        return "DELETE FROM " + table.qualified() + " WHERE " + in("id", ids) + " AND " + where;
    }
}
