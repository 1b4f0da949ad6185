package dev.leasebox.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Locale;

/** The databases Leasebox ships scripts and statements for; the folder names under {@code db/leasebox/}. */
public enum DatabaseKind {
    POSTGRESQL("postgresql"),
    H2("h2");

    private final String folder;

    DatabaseKind(String folder) {
        this.folder = folder;
    }

    /** The resource folder name: {@code db/leasebox/<folder>/V1__…sql}. */
    public String folder() {
        return folder;
    }

    /** The kind of database behind {@code connection}, from its JDBC metadata. */
    public static DatabaseKind of(Connection connection) throws SQLException {
        String product = connection.getMetaData().getDatabaseProductName();
        String p = product.toLowerCase(Locale.ROOT);
        if (p.contains("postgresql")) {
            return POSTGRESQL;
        }
        if (p.equals("h2")) {
            return H2;
        }
        throw new JdbcOutboxException("Unsupported outbox database '" + product + "' at "
                + JdbcUrls.redact(connection.getMetaData().getURL())
                + ": Leasebox's JDBC store supports PostgreSQL and H2");
    }
}
