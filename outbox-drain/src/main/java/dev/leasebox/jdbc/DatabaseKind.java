package dev.leasebox.jdbc;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.util.Locale;

/** The databases Leasebox ships scripts and statements for; the folder names under {@code db/leasebox/}. */
public enum DatabaseKind {
    POSTGRESQL("postgresql"),
    H2("h2"),
    /** MariaDB 10.6 or later (FOR UPDATE SKIP LOCKED, sequences, RETURNING on INSERT). */
    MARIADB("mariadb");

    /** The databases supported, with their JDBC URL prefixes: the end of every "unsupported database" message. */
    public static final String SUPPORTED = "Leasebox supports PostgreSQL (jdbc:postgresql:), MariaDB 10.6+ "
            + "(jdbc:mariadb:, or jdbc:mysql: to a MariaDB server) and H2 (jdbc:h2:)";

    private final String folder;

    DatabaseKind(String folder) {
        this.folder = folder;
    }

    /** The resource folder name: {@code db/leasebox/<folder>/V1__…sql}. */
    public String folder() {
        return folder;
    }

    /**
     * The kind of database a JDBC URL names, from its prefix; {@code jdbc:mysql:} is taken for MariaDB
     * (the server's own answer decides at connection time, see {@link #of(Connection)}).
     *
     * @throws JdbcOutboxException for any other database, naming the ones supported
     */
    public static DatabaseKind ofJdbcUrl(String jdbcUrl) {
        String url = jdbcUrl == null ? "" : jdbcUrl.toLowerCase(Locale.ROOT);
        if (url.startsWith("jdbc:postgresql:")) {
            return POSTGRESQL;
        }
        if (url.startsWith("jdbc:h2:")) {
            return H2;
        }
        if (url.startsWith("jdbc:mariadb:") || url.startsWith("jdbc:mysql:")) {
            return MARIADB;
        }
        throw new JdbcOutboxException("Unsupported outbox database URL " + JdbcUrls.redact(jdbcUrl) + ": " + SUPPORTED);
    }

    /** The kind of database behind {@code connection}, from its JDBC metadata. */
    public static DatabaseKind of(Connection connection) throws SQLException {
        DatabaseMetaData meta = connection.getMetaData();
        String product = meta.getDatabaseProductName();
        String p = product.toLowerCase(Locale.ROOT);
        if (p.contains("postgresql")) {
            return POSTGRESQL;
        }
        if (p.equals("h2")) {
            return H2;
        }
        String version = String.valueOf(meta.getDatabaseProductVersion());
        if (p.contains("mariadb") || p.contains("mysql") && version.toLowerCase(Locale.ROOT).contains("mariadb")) {
            return MARIADB;
        }
        if (p.contains("mysql")) {
            throw new JdbcOutboxException("Unsupported outbox database MySQL " + version + " at "
                    + JdbcUrls.redact(meta.getURL()) + ": the MariaDB dialect takes claim tokens and lease fences "
                    + "from sequences, which MySQL lacks. " + SUPPORTED);
        }
        throw new JdbcOutboxException("Unsupported outbox database '" + product + "' at "
                + JdbcUrls.redact(meta.getURL()) + ": " + SUPPORTED);
    }
}
