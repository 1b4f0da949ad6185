package dev.leasebox.cli;

import com.zaxxer.hikari.HikariDataSource;
import dev.leasebox.jdbc.DatabaseKind;
import dev.leasebox.jdbc.JdbcOutboxException;
import dev.leasebox.jdbc.TableName;
import picocli.CommandLine.Option;

import java.sql.DriverManager;
import java.sql.SQLException;

/** The outbox database: where every command finds the table. */
final class DatabaseOptions {

    @Option(names = "--jdbc-url", required = true, paramLabel = "URL",
            description = "The outbox database, e.g. jdbc:postgresql://127.0.0.1:5432/app?user=app (env LEASEBOX_JDBC_URL).")
    String jdbcUrl;

    @Option(names = "--jdbc-user", paramLabel = "USER", description = "Database user, if not in the URL.")
    String user;

    @Option(names = "--jdbc-password", paramLabel = "PASSWORD", description = "Database password, if not in the URL (prefer LEASEBOX_JDBC_PASSWORD).")
    String password;

    @Option(names = "--table", paramLabel = "NAME", defaultValue = "leasebox_outbox",
            description = "The outbox table, optionally schema-qualified (default: ${DEFAULT-VALUE}).")
    String table;

    @Option(names = "--pool-size", paramLabel = "N", defaultValue = "8", description = "Connection pool size (default: ${DEFAULT-VALUE}).")
    int poolSize;

    /** Refuses a URL that is not a JDBC URL, or one no driver here understands, naming the flag and what to write. */
    static void checkUrl(String jdbcUrl) {
        String shown = JdbcDataSources.redact(jdbcUrl);
        if (!jdbcUrl.startsWith("jdbc:")) {
            throw new IllegalArgumentException("--jdbc-url '" + shown + "' is not a JDBC URL: write e.g. "
                    + "jdbc:postgresql://127.0.0.1:5432/app?user=app, jdbc:mariadb://127.0.0.1:3306/app?user=app or "
                    + "jdbc:h2:file:./outbox");
        }
        try {
            DatabaseKind.ofJdbcUrl(jdbcUrl);
        } catch (JdbcOutboxException e) {
            throw new IllegalArgumentException("--jdbc-url '" + shown + "': not a database leasebox supports; "
                    + DatabaseKind.SUPPORTED);
        }
        try {
            DriverManager.getDriver(JdbcDataSources.driverUrl(jdbcUrl));
        } catch (SQLException e) {
            throw new IllegalArgumentException("--jdbc-url '" + shown + "': no JDBC driver for it here; "
                    + DatabaseKind.SUPPORTED);
        }
    }

    TableName tableName() {
        return TableName.parse(table);
    }

    HikariDataSource open() {
        checkUrl(jdbcUrl);
        return JdbcDataSources.pooled(jdbcUrl, user, password, poolSize);
    }
}
