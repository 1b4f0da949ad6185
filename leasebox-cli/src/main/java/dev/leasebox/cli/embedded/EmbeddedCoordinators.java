package dev.leasebox.cli.embedded;

import dev.leasebox.lease.spi.Durations;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Starts a coordinator in this JVM on 127.0.0.1: ZooKeeper (one standalone server) or Hazelcast (CP members).
 * Redis has no embedded form: it needs its own {@code redis-server}.
 */
public final class EmbeddedCoordinators {

    /** The backends that can run embedded. */
    public static final Set<String> BACKENDS = Set.of("zookeeper", "hazelcast");

    private static final Set<String> ZOOKEEPER_OPTIONS = Set.of("port", "data-dir");
    private static final Set<String> HAZELCAST_OPTIONS = Set.of("cluster-name", "port", "members", "session-ttl", "heartbeat");

    private EmbeddedCoordinators() {
    }

    /**
     * A coordinator for {@code backend}, started with {@code options} (kebab-case; unknown names refused with one line).
     * ZooKeeper: {@code port} (default: a free one), {@code data-dir} (default: a temporary directory, deleted on
     * close). Hazelcast: none for three CP members on free ports (the demo), or {@code port} and {@code members}
     * ({@code 127.0.0.1:PORT,…}, all members of the cluster) for one member of a cluster started member by member
     * (the {@code hazelcast-member} command); {@code cluster-name} (default {@code leasebox}); {@code session-ttl} and
     * {@code heartbeat} (whole seconds, default 10s and 1s): the CP session timing, which bounds how long a crashed
     * client's locks stay held.
     */
    public static EmbeddedCoordinator start(String backend, Map<String, String> options) {
        return switch (backend) {
            case "zookeeper" -> zooKeeper(checked(backend, options, ZOOKEEPER_OPTIONS));
            case "hazelcast" -> hazelcast(checked(backend, options, HAZELCAST_OPTIONS));
            default -> throw new IllegalArgumentException("the " + backend + " backend cannot run embedded: choose one of "
                    + BACKENDS + ", or give the address of a running " + backend);
        };
    }

    private static Map<String, String> checked(String backend, Map<String, String> options, Set<String> known) {
        for (String option : options.keySet()) {
            if (!known.contains(option)) {
                throw new IllegalArgumentException("unknown embedded " + backend + " option '" + option + "': use " + known);
            }
        }
        return options;
    }

    private static EmbeddedCoordinator zooKeeper(Map<String, String> options) {
        int port = port(options.getOrDefault("port", "0"));
        try {
            boolean temporary = !options.containsKey("data-dir");
            Path dataDir = temporary ? Files.createTempDirectory("leasebox-zookeeper-") : Path.of(options.get("data-dir"));
            return EmbeddedZooKeeperServer.start(port, dataDir, temporary);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a data directory for an embedded ZooKeeper: " + e.getMessage(), e);
        }
    }

    private static EmbeddedCoordinator hazelcast(Map<String, String> options) {
        String clusterName = options.getOrDefault("cluster-name", "leasebox");
        Duration sessionTtl = Optional.ofNullable(options.get("session-ttl")).map(v -> Durations.parse("session-ttl", v))
                .orElse(EmbeddedCpMembers.SESSION_TTL);
        Duration heartbeat = Optional.ofNullable(options.get("heartbeat")).map(v -> Durations.parse("heartbeat", v))
                .orElse(EmbeddedCpMembers.HEARTBEAT);
        if (!options.containsKey("port")) {
            List<Integer> ports = LoopbackPorts.free(3);
            return EmbeddedCpMembers.start(clusterName, ports, ports, sessionTtl, heartbeat);
        }
        int port = port(options.get("port"));
        List<Integer> all = new ArrayList<>();
        for (String member : options.getOrDefault("members", "127.0.0.1:" + port).split(",")) {
            String[] hostPort = member.trim().split(":");
            if (hostPort.length != 2 || !hostPort[0].equals("127.0.0.1")) {
                throw new IllegalArgumentException("members must be 127.0.0.1:PORT,… for a local trial, was '" + member + "'");
            }
            all.add(port(hostPort[1]));
        }
        if (!all.contains(port)) {
            all.add(port);
        }
        return EmbeddedCpMembers.start(clusterName, List.of(port), all, sessionTtl, heartbeat);
    }

    private static int port(String value) {
        try {
            int port = Integer.parseInt(value.trim());
            if (port >= 0 && port <= 65535) {
                return port;
            }
        } catch (NumberFormatException e) {
            // below
        }
        throw new IllegalArgumentException("port must be a number in 0..65535, was '" + value + "'");
    }
}
