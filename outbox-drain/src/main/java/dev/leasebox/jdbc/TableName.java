package dev.leasebox.jdbc;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The outbox table's name, validated once so that it can be placed into SQL text: an unquoted
 * identifier, optionally schema-qualified ({@code schema.table}), of ASCII letters, digits and
 * underscores, starting with a letter or underscore, at most 40 characters per part (derived names
 * such as {@code <table>_claim_token_seq} must stay within PostgreSQL's 63-character limit).
 * Nothing else is ever concatenated into a statement.
 *
 * @param schema the schema part, empty when the name is unqualified
 * @param table  the table part
 */
public record TableName(String schema, String table) {

    private static final Pattern PART = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,39}");

    /** The default table name. */
    public static final TableName DEFAULT = new TableName("", "leasebox_outbox");

    public TableName {
        Objects.requireNonNull(schema, "schema");
        Objects.requireNonNull(table, "table");
        if (!schema.isEmpty() && !PART.matcher(schema).matches() || !PART.matcher(table).matches()) {
            throw invalid(schema.isEmpty() ? table : schema + "." + table);
        }
    }

    /** Parses {@code table} or {@code schema.table}. */
    public static TableName parse(String name) {
        Objects.requireNonNull(name, "table name");
        int dot = name.indexOf('.');
        if (dot < 0) {
            if (!PART.matcher(name).matches()) {
                throw invalid(name);
            }
            return new TableName("", name);
        }
        String schema = name.substring(0, dot);
        String table = name.substring(dot + 1);
        if (!PART.matcher(schema).matches() || !PART.matcher(table).matches()) {
            throw invalid(name);
        }
        return new TableName(schema, table);
    }

    private static IllegalArgumentException invalid(String name) {
        return new IllegalArgumentException("Invalid outbox table name '" + name + "' (property table): use letters, "
                + "digits and underscores, starting with a letter or underscore, at most 40 characters, optionally "
                + "schema-qualified as schema.table");
    }

    /** The name as it goes into SQL: {@code schema.table} or {@code table}. */
    public String qualified() {
        return schema.isEmpty() ? table : schema + "." + table;
    }

    /** Replaces the {@code ${table}} and {@code ${table_name}} placeholders of a script or statement. */
    public String substituteInto(String sql) {
        return sql.replace("${table}", qualified()).replace("${table_name}", table);
    }

    @Override
    public String toString() {
        return qualified();
    }
}
