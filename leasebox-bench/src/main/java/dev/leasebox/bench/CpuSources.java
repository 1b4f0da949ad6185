package dev.leasebox.bench;

import com.zaxxer.hikari.HikariDataSource;
import dev.leasebox.jdbc.DatabaseKind;
import redis.clients.jedis.Jedis;

import java.io.IOException;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Finds, once per run, the processes whose CPU the bench reports beside every cell.
 *
 * <p>PostgreSQL, two figures. The database column: the backends {@code pg_stat_activity} lists for this
 * JVM's connections and the server's background processes ({@link PostgresOwnBackends}): on a shared
 * machine other clients' queries are not the bench's cost. The server column: the postmaster and all its
 * children, found through the bench's own connection (its backend, {@code pg_backend_pid()}, is a child of
 * the postmaster): exactly the server behind {@code --jdbc-url}, whichever user it runs as and however
 * many other PostgreSQL servers run here, every client included. Neither is found by the executable's
 * name or the {@code postgres} user, which would take in every PostgreSQL on the machine. MariaDB: the
 * one {@code mariadbd} (or {@code mysqld}) process of {@code @@pid_file}, both columns; its connections
 * are threads of that process, other clients' included. Redis: the {@code process_id} the server reports
 * in {@code INFO server}, the bench's own {@code redis-server} child or a running one given with
 * {@code --redis}. Only servers on this host (a loopback address) are read; others are "n/a".
 */
final class CpuSources implements AutoCloseable {

    private final Path proc;
    private final Optional<TickSource> database;
    private final Optional<TickSource> server;
    private final String databaseWhat;
    private final AutoCloseable resources;

    private CpuSources(Path proc, Optional<TickSource> database, Optional<TickSource> server, String databaseWhat,
                       AutoCloseable resources) {
        this.proc = proc;
        this.database = database;
        this.server = server;
        this.databaseWhat = databaseWhat;
        this.resources = resources;
    }

    /** The database server of {@code db}, found as the class comment says; "n/a" when it cannot be. */
    static CpuSources find(BenchDatabase db) {
        Path proc = ProcessTree.PROC;
        if (!ProcessTree.available(proc)) {
            return new CpuSources(proc, Optional.empty(), Optional.empty(), "n/a (no /proc: CPU is measured on Linux only)",
                    () -> { });
        }
        HikariDataSource pool = db.newPool(1);
        try (Connection c = pool.getConnection()) {
            boolean maria = db.kind() == DatabaseKind.MARIADB;
            Optional<TickSource> tree = maria ? mariaDb(proc, c) : postgreSql(proc, c);
            if (tree.isEmpty()) {
                pool.close();
                return new CpuSources(proc, tree, tree, "n/a (the database server is not a process of this host)", () -> { });
            }
            if (maria) {
                pool.close();
                return new CpuSources(proc, tree, tree, tree.get().description(), () -> { });
            }
            PostgresOwnBackends own = new PostgresOwnBackends(proc, pool);
            return new CpuSources(proc, Optional.of(own), tree, own.description() + " (server: "
                    + tree.get().description() + ")", own);
        } catch (SQLException | RuntimeException e) {
            pool.close();
            return new CpuSources(proc, Optional.empty(), Optional.empty(), "n/a (" + e.getMessage() + ")", () -> { });
        }
    }

    @Override
    public void close() {
        try {
            resources.close();
        } catch (Exception e) {
            // closing a pool of one connection on the way out
        }
    }

    /** A meter for one cell: the database, this JVM and the coordinator's own process where it has one. */
    CpuMeter meter(Optional<BenchCoordinator> coordinator) {
        if (!ProcessTree.available(proc)) {
            return new CpuMeter(proc, Optional.empty(), Optional.empty(), Optional.empty(), true, "database: " + databaseWhat);
        }
        CpuMeter meter = new CpuMeter(proc, database, server, Optional.empty(), true, "database: " + databaseWhat
                + "; jvm: pid " + ProcessHandle.current().pid());
        if (coordinator.isEmpty()) {
            return meter;
        }
        BenchCoordinator c = coordinator.get();
        if (c.backend().equals("redis")) {
            Optional<TickSource> redis = redis(proc, c.address());
            return meter.withCoordinator(redis, redis.map(TickSource::description)
                    .orElse("n/a (redis-server not found on this host)"));
        }
        return meter.withCoordinator(Optional.empty(), c.description().startsWith("embedded")
                ? "in the jvm column (in-process " + c.backend() + ")" : "n/a (" + c.backend() + " given by address)");
    }

    private static Optional<TickSource> postgreSql(Path proc, Connection c) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT pg_backend_pid(), host(inet_server_addr())")) {
            rs.next();
            long backend = rs.getLong(1);
            String server = rs.getString(2); // null over a Unix socket
            if (server != null && !loopback(server)) {
                return Optional.empty();
            }
            return ProcessTree.stat(proc, backend).filter(s -> s.comm().equals("postgres"))
                    .flatMap(s -> ProcessTree.stat(proc, s.ppid()))
                    .filter(p -> p.comm().equals("postgres") || p.comm().equals("postmaster"))
                    .map(p -> new ProcessTree(proc, p.pid(), "postgres pid " + p.pid() + " and its children"));
        }
    }

    private static Optional<TickSource> mariaDb(Path proc, Connection c) throws SQLException {
        String pidFile;
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT @@pid_file")) {
            rs.next();
            pidFile = rs.getString(1);
        }
        Set<String> names = Set.of("mariadbd", "mysqld");
        Optional<Long> pid = Optional.empty();
        try {
            pid = Optional.of(Long.parseLong(Files.readString(Path.of(pidFile), StandardCharsets.US_ASCII).trim()));
        } catch (IOException | RuntimeException unreadable) {
            List<Long> running = names.stream().flatMap(n -> ProcessTree.withCommand(proc, n).stream()).toList();
            if (running.size() == 1) {
                pid = Optional.of(running.get(0));
            }
        }
        return pid.flatMap(p -> ProcessTree.stat(proc, p)).filter(s -> names.contains(s.comm()))
                .map(s -> new ProcessTree(proc, s.pid(), s.comm() + " pid " + s.pid()));
    }

    private static Optional<TickSource> redis(Path proc, String address) {
        URI uri = URI.create(address);
        if (uri.getHost() == null || !loopback(uri.getHost())) {
            return Optional.empty();
        }
        try (Jedis jedis = new Jedis(uri)) {
            return jedis.info("server").lines().filter(l -> l.startsWith("process_id:"))
                    .map(l -> Long.parseLong(l.substring("process_id:".length()).trim())).findFirst()
                    .flatMap(pid -> ProcessTree.stat(proc, pid)).filter(s -> s.comm().startsWith("redis-server"))
                    .map(s -> new ProcessTree(proc, s.pid(), "redis-server pid " + s.pid()));
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }

    private static boolean loopback(String host) {
        try {
            return InetAddress.getByName(host).isLoopbackAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }

    private static volatile double ticksPerSecond;

    /** {@code USER_HZ}, the unit of {@code /proc}'s CPU times: {@code getconf CLK_TCK}, else Linux's 100. */
    static double ticksPerSecond() {
        if (ticksPerSecond == 0) {
            double ticks = 100;
            try {
                Process p = new ProcessBuilder("getconf", "CLK_TCK").redirectErrorStream(true).start();
                String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).trim();
                if (p.waitFor(5, TimeUnit.SECONDS) && p.exitValue() == 0) {
                    ticks = Double.parseDouble(out);
                }
            } catch (IOException | NumberFormatException e) {
                // no getconf: Linux's USER_HZ is 100 on every architecture the JVM runs on
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            ticksPerSecond = ticks;
        }
        return ticksPerSecond;
    }
}
