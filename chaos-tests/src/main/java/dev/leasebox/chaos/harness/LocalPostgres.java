package dev.leasebox.chaos.harness;

import dev.leasebox.chaos.fault.FaultLog;
import dev.leasebox.chaos.history.FaultEvent;
import dev.leasebox.testkit.LoopbackPorts;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A PostgreSQL server of the run's own, for the faults that take the database down: {@code initdb} into a
 * temporary directory, then {@code postgres} on a free loopback port (as user {@code postgres} through
 * {@code setpriv}, which execs it in place, when the harness runs as root), so its pid is the postmaster's
 * and a signal reaches it. {@link #restart} stops it with SIGQUIT (PostgreSQL's immediate shutdown: no
 * checkpoint, crash recovery at the next start, as after a crash) and starts it again on the same port and
 * data. {@code fsync=off} only spares the disk: committed data is written to the OS at commit
 * ({@code synchronous_commit} stays on), and the OS survives a server restart. {@link #close()} stops it
 * and deletes the directory.
 */
public final class LocalPostgres implements AutoCloseable {

    private final Path bin;
    private final Path dir;
    private final int port;
    private final Path runDir;
    private ChaosProcess server;
    private int starts;

    private LocalPostgres(Path bin, Path dir, int port, Path runDir) {
        this.bin = bin;
        this.dir = dir;
        this.port = port;
        this.runDir = runDir;
    }

    /** One line naming what to install when the server binaries are missing; empty when they are there. */
    public static String missing() {
        return binDir().isPresent() ? ""
                : "PostgreSQL's server binaries (initdb, postgres under /usr/lib/postgresql/*/bin) are missing: "
                + "apt-get install -y postgresql";
    }

    private static Optional<Path> binDir() {
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
            throw new UncheckedIOException("cannot list " + root + ": " + e.getMessage(), e);
        }
        return Optional.empty();
    }

    /** initdb, then the server on a free port; its log in {@code runDir/postgresql-<n>.log}. */
    public static LocalPostgres start(Path runDir) {
        String missing = missing();
        if (!missing.isEmpty()) {
            throw new IllegalStateException(missing);
        }
        Path dir;
        try {
            dir = Files.createTempDirectory("leasebox-chaos-pg");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a directory for PostgreSQL: " + e.getMessage(), e);
        }
        LocalPostgres pg = new LocalPostgres(binDir().orElseThrow(), dir, LoopbackPorts.free(), runDir);
        try {
            if (root()) {
                run(List.of("chown", "postgres", dir.toString()), runDir.resolve("initdb.log"));
            }
            List<String> initdb = pg.asPostgres();
            initdb.addAll(List.of(pg.bin.resolve("initdb").toString(), "-D", dir.resolve("data").toString(), "-U", "postgres",
                    "--auth=trust", "--no-sync", "--no-instructions"));
            run(initdb, runDir.resolve("initdb.log"));
            pg.startServer();
            return pg;
        } catch (RuntimeException e) {
            pg.close();
            throw e;
        }
    }

    private static boolean root() {
        return "root".equals(System.getProperty("user.name"));
    }

    private List<String> asPostgres() {
        return new ArrayList<>(root() ? List.of("setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups", "--")
                : List.of());
    }

    private void startServer() {
        starts++;
        List<String> command = asPostgres();
        command.addAll(List.of(bin.resolve("postgres").toString(), "-D", dir.resolve("data").toString(),
                "-p", Integer.toString(port), "-h", "127.0.0.1", "-k", dir.toString(), "-c", "fsync=off",
                "-c", "max_connections=60"));
        server = ChaosProcess.start("postgresql", command, Map.of(), runDir.resolve("postgresql-" + starts + ".log"));
        server.awaitListening("127.0.0.1", port, Duration.ofSeconds(60));
        // listening is not ready: during crash recovery it refuses with "the database system is starting up"
        if (!Poll.until(this::acceptsQueries, Duration.ofMillis(100), Duration.ofSeconds(60))) {
            throw new IllegalStateException("PostgreSQL on port " + port + " listens but accepts no query after 60 s; log "
                    + server.log() + ":\n" + server.logTail());
        }
    }

    private boolean acceptsQueries() {
        try (java.sql.Connection c = java.sql.DriverManager.getConnection(jdbcUrl());
             java.sql.Statement s = c.createStatement()) {
            return s.execute("SELECT 1");
        } catch (java.sql.SQLException e) {
            return false;
        }
    }

    /** The server's default database {@code postgres}, as {@link dev.leasebox.chaos.scenario.RunSettings#jdbcBaseUrl}. */
    public String jdbcUrl() {
        return "jdbc:postgresql://127.0.0.1:" + port + "/postgres?user=postgres";
    }

    public int port() {
        return port;
    }

    public long pid() {
        return server.pid();
    }

    /**
     * Immediate shutdown (SIGQUIT to the postmaster: every connection dropped, no checkpoint), {@code downtime}
     * down, then started again on the same port and data (crash recovery); returns once it accepts connections.
     */
    public void restart(FaultLog faults, Duration downtime) {
        faults.record(FaultEvent.DB_RESTART, "postgresql:" + port, "SIGQUIT pid " + server.pid()
                + " (immediate shutdown), down for " + downtime.toMillis() + " ms");
        server.signalAndWait("QUIT", Duration.ofSeconds(30));
        Poll.pause(downtime);
        startServer();
        faults.record(FaultEvent.DB_START, "postgresql:" + port, "accepting connections again after crash recovery, pid "
                + server.pid());
    }

    @Override
    public void close() {
        try {
            if (server != null && server.isAlive()) {
                server.signalAndWait("INT", Duration.ofSeconds(20)); // fast shutdown
            }
        } finally {
            try (Stream<Path> files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            } catch (IOException e) {
                System.err.println("chaos: could not delete " + dir + ": " + e.getMessage());
            }
        }
    }

    private static void run(List<String> command, Path log) {
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
            if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IllegalStateException(String.join(" ", command) + " failed; log " + log);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run " + command.get(0) + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted running " + command.get(0), e);
        }
    }
}
