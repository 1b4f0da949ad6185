package dev.leasebox.jdbc;

import dev.leasebox.testkit.LoopbackPorts;
import com.zaxxer.hikari.HikariDataSource;
import dev.leasebox.testkit.RequiredServer;

import java.util.Locale;
import java.util.Optional;
import java.util.UUID;

/**
 * The MariaDB server of the JDBC tests, found as {@link RequiredServer} prescribes:
 * {@code LEASEBOX_MARIADB_URL} if set; else 127.0.0.1:3306 database {@code test} (user root, no
 * password) if it answers; else one line saying what to install. Each test class works in a database
 * of its own ({@link #newDatabase}), dropped after.
 */
public final class MariaDbTestServer {

    private static String url;

    private MariaDbTestServer() {
    }

    public static synchronized String jdbcUrl() {
        if (url == null) {
            url = RequiredServer.fromEnvironment("LEASEBOX_MARIADB_URL")
                    .or(() -> LoopbackPorts.isListening(3306)
                            ? Optional.of("jdbc:mariadb://127.0.0.1:3306/test?user=root")
                            : Optional.empty())
                    .orElseThrow(() -> RequiredServer.missing("MariaDB", "LEASEBOX_MARIADB_URL",
                            "apt-get install mariadb-server"));
        }
        return url;
    }

    public static HikariDataSource dataSource(int poolSize) {
        return TestDataSources.pooled(jdbcUrl(), "", "", poolSize);
    }

    /**
     * As {@link #dataSource(int)}, every pooled connection running {@code connectionInitSql} first (e.g. a
     * session {@code sql_mode}), as a service's pool may.
     */
    public static HikariDataSource dataSource(int poolSize, String connectionInitSql) {
        return TestDataSources.pooled(jdbcUrl(), "", "", poolSize, connectionInitSql);
    }

    /** The JDBC URL of {@link #jdbcUrl()} with {@code database} in place of its own: what a worker process is given. */
    public static String jdbcUrlFor(String database) {
        String base = jdbcUrl();
        int query = base.indexOf('?');
        int slash = base.lastIndexOf('/', query < 0 ? base.length() : query);
        return base.substring(0, slash + 1) + database + (query < 0 ? "" : base.substring(query));
    }

    /** Creates a database with a random name and returns it. */
    public static String newDatabase(HikariDataSource ds) {
        String name = "lb_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12).toLowerCase(Locale.ROOT);
        PostgreSqlTestServer.execute(ds, "CREATE DATABASE " + name);
        return name;
    }

    public static void dropDatabase(HikariDataSource ds, String name) {
        PostgreSqlTestServer.execute(ds, "DROP DATABASE IF EXISTS " + name);
    }
}
