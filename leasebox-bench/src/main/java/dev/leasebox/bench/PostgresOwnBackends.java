package dev.leasebox.bench;

import com.zaxxer.hikari.HikariDataSource;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The PostgreSQL processes that work for this bench: the backends serving this JVM's connections and the
 * server's background processes (WAL writer, checkpointer, background writer, autovacuum), without the
 * backends of other clients of a shared server. A backend is this JVM's when the client port
 * {@code pg_stat_activity} shows for it is the local port of one of this process's TCP sockets
 * ({@code /proc/self/fd} and {@code /proc/self/net/tcp}). Read per process, so that a backend another
 * client opens and closes inside a window adds nothing.
 */
final class PostgresOwnBackends implements TickSource, AutoCloseable {

    private final Path proc;
    private final HikariDataSource pool;

    PostgresOwnBackends(Path proc, HikariDataSource pool) {
        this.proc = proc;
        this.pool = pool;
    }

    @Override
    public String description() {
        return "postgres backends of this JVM's connections and the background processes";
    }

    @Override
    public Optional<Map<Long, Long>> ticks() {
        Set<Integer> ports = ownTcpPorts(proc);
        Map<Long, Long> ticks = new HashMap<>();
        try (Connection c = pool.getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT pid, backend_type, client_port FROM pg_stat_activity")) {
            while (rs.next()) {
                long pid = rs.getLong(1);
                boolean client = "client backend".equals(rs.getString(2));
                if (!client || ports.contains(rs.getInt(3))) {
                    ProcessTree.stat(proc, pid).ifPresent(s -> ticks.put(pid, s.ownTicks()));
                }
            }
        } catch (SQLException | RuntimeException e) {
            return Optional.empty();
        }
        return ticks.isEmpty() ? Optional.empty() : Optional.of(ticks);
    }

    /** The local ports of this process's TCP sockets. */
    static Set<Integer> ownTcpPorts(Path proc) {
        Set<Long> inodes = new HashSet<>();
        try (DirectoryStream<Path> fds = Files.newDirectoryStream(proc.resolve("self").resolve("fd"))) {
            for (Path fd : fds) {
                try {
                    socketInode(Files.readSymbolicLink(fd).toString()).ifPresent(inodes::add);
                } catch (IOException | UnsupportedOperationException closed) {
                    // closed between the listing and the read
                }
            }
        } catch (IOException | UncheckedIOException e) {
            return Set.of();
        }
        Set<Integer> ports = new HashSet<>();
        for (String table : List.of("tcp", "tcp6")) {
            try {
                ports.addAll(localPorts(Files.readAllLines(proc.resolve("self").resolve("net").resolve(table)), inodes));
            } catch (IOException | UncheckedIOException e) {
                // no IPv6 table: nothing from it
            }
        }
        return ports;
    }

    /** The inode of a {@code socket:[12345]} link target. */
    static Optional<Long> socketInode(String target) {
        if (target.startsWith("socket:[") && target.endsWith("]")) {
            try {
                return Optional.of(Long.parseLong(target.substring(8, target.length() - 1)));
            } catch (NumberFormatException e) {
                return Optional.empty();
            }
        }
        return Optional.empty();
    }

    /** The local ports of the lines of {@code /proc/net/tcp} whose socket inode is one of {@code inodes}. */
    static Set<Integer> localPorts(List<String> lines, Set<Long> inodes) {
        Set<Integer> ports = new HashSet<>();
        for (String line : lines) {
            String[] f = line.trim().split("\\s+");
            if (f.length < 10 || !f[1].contains(":")) {
                continue; // the header
            }
            try {
                if (inodes.contains(Long.parseLong(f[9]))) {
                    ports.add(Integer.parseInt(f[1].substring(f[1].indexOf(':') + 1), 16));
                }
            } catch (NumberFormatException e) {
                // not a socket line
            }
        }
        return ports;
    }

    @Override
    public void close() {
        pool.close();
    }
}
