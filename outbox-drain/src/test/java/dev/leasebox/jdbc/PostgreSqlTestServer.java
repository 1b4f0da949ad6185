package dev.leasebox.jdbc;

import dev.leasebox.testkit.LoopbackPorts;
import com.zaxxer.hikari.HikariDataSource;
import dev.leasebox.testkit.ManagedProcess;
import dev.leasebox.testkit.RequiredServer;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * The PostgreSQL server of the JDBC tests, found as {@link RequiredServer} prescribes:
 * {@code LEASEBOX_JDBC_URL} if set; else 127.0.0.1:5432 database {@code test} (user postgres) if
 * it answers; else a throw-away server from the installed binaries (initdb, then postgres on a free
 * port in a temp dir, stopped by pid at JVM exit); else one line saying what to install.
 * Each test class works in a schema of its own ({@link #newSchema()}), dropped after.
 */
public final class PostgreSqlTestServer {

    private static String url;
    private static ManagedProcess local;

    private PostgreSqlTestServer() {
    }

    public static synchronized String jdbcUrl() {
        if (url == null) {
            url = RequiredServer.fromEnvironment("LEASEBOX_JDBC_URL")
                    .or(() -> LoopbackPorts.isListening(5432)
                            ? Optional.of("jdbc:postgresql://127.0.0.1:5432/test?user=postgres")
                            : Optional.empty())
                    .or(PostgreSqlTestServer::startLocal)
                    .orElseThrow(() -> RequiredServer.missing("PostgreSQL", "LEASEBOX_JDBC_URL",
                            "apt-get install postgresql"));
        }
        return url;
    }

    public static HikariDataSource dataSource(int poolSize) {
        return TestDataSources.pooled(jdbcUrl(), "", "", poolSize);
    }

    /** The JDBC URL of {@link #jdbcUrl()} with {@code currentSchema} set: what a worker process is given. */
    public static String jdbcUrlFor(String schema) {
        String base = jdbcUrl();
        return base + (base.contains("?") ? "&" : "?") + "currentSchema=" + schema;
    }

    /** Creates a schema with a random name and returns it. */
    public static String newSchema(HikariDataSource ds) {
        String schema = "lb_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12).toLowerCase(Locale.ROOT);
        execute(ds, "CREATE SCHEMA " + schema);
        return schema;
    }

    public static void dropSchema(HikariDataSource ds, String schema) {
        execute(ds, "DROP SCHEMA IF EXISTS " + schema + " CASCADE");
    }

    public static void execute(HikariDataSource ds, String sql) {
        try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
            st.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }

    /** The first column of the first row {@code sql} returns, as a long. */
    public static long queryLong(HikariDataSource ds, String sql) {
        try (Connection c = ds.getConnection(); Statement st = c.createStatement();
             java.sql.ResultSet rs = st.executeQuery(sql)) {
            if (!rs.next()) {
                throw new IllegalStateException(sql + ": no row");
            }
            return rs.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }

    private static Optional<String> startLocal() {
        Optional<Path> bin = installedBinDir();
        if (bin.isEmpty()) {
            return Optional.empty();
        }
        File dir = ManagedProcess.tempDir("postgresql");
        boolean root = "root".equals(System.getProperty("user.name"));
        List<String> asUser = root ? List.of("runuser", "-u", "postgres", "--") : List.of();
        if (root) {
            run(List.of("chown", "postgres", dir.getPath()));
        }
        List<String> initdb = new ArrayList<>(asUser);
        initdb.addAll(List.of(bin.get().resolve("initdb").toString(), "-D", dir.getPath() + "/data",
                "-U", "postgres", "--auth=trust", "--no-sync"));
        run(initdb);
        int port = LoopbackPorts.free();
        List<String> postgres = new ArrayList<>(asUser);
        postgres.addAll(List.of(bin.get().resolve("postgres").toString(), "-D", dir.getPath() + "/data",
                "-p", Integer.toString(port), "-h", "127.0.0.1", "-k", dir.getPath(), "-F"));
        local = ManagedProcess.start("postgresql", postgres).awaitListening(port, Duration.ofSeconds(30));
        Runtime.getRuntime().addShutdownHook(new Thread(local::close));
        // the default database `postgres` stands in for `test`
        return Optional.of("jdbc:postgresql://127.0.0.1:" + port + "/postgres?user=postgres");
    }

    private static Optional<Path> installedBinDir() {
        Path root = Path.of("/usr/lib/postgresql");
        if (!Files.isDirectory(root)) {
            return Optional.empty();
        }
        try (DirectoryStream<Path> versions = Files.newDirectoryStream(root)) {
            for (Path version : versions) {
                if (Files.isExecutable(version.resolve("bin/initdb")) && Files.isExecutable(version.resolve("bin/postgres"))) {
                    return Optional.of(version.resolve("bin"));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return Optional.empty();
    }

    private static void run(List<String> command) {
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            String output = new String(p.getInputStream().readAllBytes());
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IllegalStateException(String.join(" ", command) + " failed: " + output);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
