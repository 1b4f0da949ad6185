package dev.leasebox.cli;

import dev.leasebox.jdbc.DatabaseKind;
import dev.leasebox.jdbc.SchemaVersion;
import dev.leasebox.jdbc.JdbcUrls;
import dev.leasebox.jdbc.LeaseboxSchema;
import dev.leasebox.jdbc.TableName;

import javax.sql.DataSource;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * What a worker's {@code /ready} answers: the database answers, the outbox table is at the newest schema
 * version this code knows, and the coordinator accepts a TCP connection at one of its addresses (the
 * {@code database} backend's coordinator is the database). The first problem found, in one line.
 */
final class Readiness {

    private static final int CONNECT_TIMEOUT_MILLIS = 2_000;

    private final DataSource dataSource;
    private final TableName table;
    private final String backend;
    private final List<InetSocketAddress> coordinator;

    Readiness(DataSource dataSource, TableName table, String backend, List<InetSocketAddress> coordinator) {
        this.dataSource = dataSource;
        this.table = table;
        this.backend = backend;
        this.coordinator = List.copyOf(coordinator);
    }

    /** Empty when ready, else why not. */
    Optional<String> problem() {
        try (Connection c = dataSource.getConnection()) {
            if (!c.isValid(CONNECT_TIMEOUT_MILLIS / 1000)) {
                return Optional.of("the outbox database at " + JdbcUrls.describe(dataSource) + " does not answer");
            }
            int version = SchemaVersion.applied(c, table, DatabaseKind.of(c));
            if (version < LeaseboxSchema.LATEST_VERSION) {
                return Optional.of("the outbox table " + table + " is at schema V" + version + ", this worker knows V"
                        + LeaseboxSchema.LATEST_VERSION + ": run leasebox schema --apply or your migration tool");
            }
        } catch (SQLException | RuntimeException e) {
            return Optional.of("the outbox database is unreachable: " + CliErrors.oneLine(e));
        }
        if (!coordinator.isEmpty() && coordinator.stream().noneMatch(Readiness::accepts)) {
            return Optional.of("the " + backend + " coordinator is unreachable at " + describe(coordinator));
        }
        return Optional.empty();
    }

    private static boolean accepts(InetSocketAddress address) {
        try (Socket socket = new Socket()) {
            socket.connect(address.isUnresolved() ? new InetSocketAddress(address.getHostString(), address.getPort()) : address,
                    CONNECT_TIMEOUT_MILLIS);
            return true;
        } catch (IOException | IllegalArgumentException e) {
            return false;
        }
    }

    private static String describe(List<InetSocketAddress> addresses) {
        return String.join(",", addresses.stream().map(a -> a.getHostString() + ":" + a.getPort()).toList());
    }

    /**
     * The addresses of a backend's coordinator: a ZooKeeper connect string ({@code h:2181,h2:2181/chroot}),
     * a Redis URI ({@code redis://user:pass@h:6379}), Hazelcast members ({@code h:5701,h2}); none for
     * {@code database}.
     */
    static List<InetSocketAddress> addresses(String backend, String address) {
        String b = backend.toLowerCase(Locale.ROOT);
        if (b.equals(dev.leasebox.LeaseboxSettings.DATABASE)) {
            return List.of();
        }
        if (b.equals("redis")) {
            URI uri = URI.create(address.trim());
            return List.of(InetSocketAddress.createUnresolved(uri.getHost(), uri.getPort() > 0 ? uri.getPort() : 6379));
        }
        String list = address.trim();
        int defaultPort = 5701;
        if (b.equals("zookeeper")) {
            int chroot = list.indexOf('/');
            list = chroot < 0 ? list : list.substring(0, chroot);
            defaultPort = 2181;
        }
        List<InetSocketAddress> out = new ArrayList<>();
        for (String hostPort : list.split(",")) {
            String h = hostPort.trim();
            if (h.isEmpty()) {
                continue;
            }
            int colon = h.lastIndexOf(':');
            if (colon > 0 && h.indexOf(':') == colon) {
                out.add(InetSocketAddress.createUnresolved(h.substring(0, colon), Integer.parseInt(h.substring(colon + 1))));
            } else {
                out.add(InetSocketAddress.createUnresolved(h, defaultPort));
            }
        }
        return out;
    }
}
