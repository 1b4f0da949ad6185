package dev.leasebox.lease.hazelcast;

import dev.leasebox.lease.LeaseManager;
import dev.leasebox.lease.spi.EmbeddedCoordinator;
import dev.leasebox.lease.spi.LeaseBackend;
import dev.leasebox.lease.spi.LeaseBackendSettings;
import dev.leasebox.lease.spi.LoopbackPorts;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The {@code hazelcast} lease backend for hosts that open backends by name, as a client of an existing
 * CP cluster. The address is {@code host:port,host:port} or {@code file:PATH} (a client XML/YAML
 * file). Options: {@code clusterName} (default {@code leasebox}), {@code user} and {@code password},
 * {@code sessionTtl} and {@code heartbeat} — the CP session settings the cluster runs with, which a
 * client cannot read (default 300s and 5s, Hazelcast's own defaults; the embedded members of
 * {@code leasebox hazelcast-member} and the demo use 10s and 1s); {@code operationTimeout} — how long
 * one lock, renewal check or unlock may wait for the cluster, in whole seconds (default 15s); {@code peerRanks}
 * (default true; see {@link HazelcastLeaseConfig.Builder#peerRanks(boolean)}). The former
 * {@code rowLockSlots}, {@code rowLockBlock} and {@code rowLockLinger} are refused here: they set the
 * drain's row grouping now, which the drain takes out of the options before opening a backend.
 */
public final class HazelcastLeaseBackend implements LeaseBackend {

    private static final Set<String> OPTIONS = Set.of("clusterName", "user", "password", "sessionTtl", "heartbeat", "peerRanks",
            "operationTimeout");
    private static final Set<String> MOVED = Set.of("rowLockSlots", "rowLockBlock", "rowLockLinger");

    @Override
    public String name() {
        return "hazelcast";
    }

    @Override
    public String addressFormat() {
        return "host:port,host:port (CP members) or file:PATH (a Hazelcast client XML/YAML file)";
    }

    @Override
    public LeaseManager open(LeaseBackendSettings settings) {
        for (String option : settings.options().keySet()) {
            if (MOVED.contains(option)) {
                throw new IllegalArgumentException("hazelcast option " + option + " moved to the drain's grouped row leases "
                        + "(dev.leasebox.claim.LeaseGrouping), which the leasebox CLI, bench and chaos workers apply for any backend");
            }
            if (!OPTIONS.contains(option)) {
                throw new IllegalArgumentException("unknown hazelcast backend option '" + option + "': use " + OPTIONS);
            }
        }
        HazelcastLeaseConfig.Builder builder;
        if (settings.address().startsWith("file:")) {
            builder = HazelcastLeaseConfig.clientFromFile(Path.of(settings.address().substring("file:".length())));
        } else {
            List<String> addresses = Arrays.stream(settings.address().split(",")).map(String::trim)
                    .filter(a -> !a.isEmpty()).toList();
            builder = HazelcastLeaseConfig.client(addresses, settings.option("clusterName").orElse("leasebox"));
        }
        settings.option("user").ifPresent(user -> builder.credentials(user, settings.option("password").orElse("")));
        Duration ttl = settings.option("sessionTtl").map(HazelcastLeaseBackend::seconds).orElse(Duration.ofSeconds(300));
        Duration heartbeat = settings.option("heartbeat").map(HazelcastLeaseBackend::seconds).orElse(Duration.ofSeconds(5));
        settings.option("peerRanks").map(HazelcastLeaseBackend::onOff).ifPresent(builder::peerRanks);
        settings.option("operationTimeout").map(HazelcastLeaseBackend::seconds).ifPresent(builder::operationTimeout);
        builder.cpSession(ttl, heartbeat).leaseTtl(settings.leaseTtl()).lockNamePrefix(settings.namespace() + ":");
        return HazelcastLeaseManager.start(builder.build());
    }

    private static boolean onOff(String value) {
        return switch (value.trim().toLowerCase(java.util.Locale.ROOT)) {
            case "true", "on" -> true;
            case "false", "off" -> false;
            default -> throw new IllegalArgumentException("hazelcast option peerRanks expects true or false, was '" + value + "'");
        };
    }

    private static Duration seconds(String value) {
        String v = value.trim().toLowerCase(java.util.Locale.ROOT);
        try {
            return v.endsWith("s") ? Duration.ofSeconds(Long.parseLong(v.substring(0, v.length() - 1)))
                    : Duration.ofSeconds(Long.parseLong(v));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("hazelcast option expects seconds like 10s, was '" + value + "'");
        }
    }

    /**
     * Options: none — three CP members on free ports (the demo); or {@code port} and {@code members}
     * ({@code host:port,…}, all members of the cluster) — one member (the {@code hazelcast-member}
     * command, started once per member); {@code clusterName} (default {@code leasebox});
     * {@code sessionTtl} and {@code heartbeat} (whole seconds, default 10s and 1s): the CP session
     * timing, which bounds how long a crashed client's locks stay held (session TTL after its last
     * heartbeat, plus up to the 1 s expiry check).
     */
    @Override
    public Optional<EmbeddedCoordinator> startEmbedded(Map<String, String> options) {
        for (String option : options.keySet()) {
            if (!Set.of("clusterName", "port", "members", "sessionTtl", "heartbeat").contains(option)) {
                throw new IllegalArgumentException("unknown embedded hazelcast option '" + option
                        + "': use clusterName, port, members, sessionTtl, heartbeat");
            }
        }
        String clusterName = options.getOrDefault("clusterName", "leasebox");
        Duration sessionTtl = Optional.ofNullable(options.get("sessionTtl")).map(HazelcastLeaseBackend::seconds)
                .orElse(EmbeddedCpMembers.SESSION_TTL);
        Duration heartbeat = Optional.ofNullable(options.get("heartbeat")).map(HazelcastLeaseBackend::seconds)
                .orElse(EmbeddedCpMembers.HEARTBEAT);
        if (!options.containsKey("port")) {
            List<Integer> ports = LoopbackPorts.free(3);
            return Optional.of(EmbeddedCpMembers.start(clusterName, ports, ports, sessionTtl, heartbeat));
        }
        int port = Integer.parseInt(options.get("port"));
        List<Integer> all = new ArrayList<>();
        for (String member : options.getOrDefault("members", "127.0.0.1:" + port).split(",")) {
            String[] hostPort = member.trim().split(":");
            if (hostPort.length != 2 || !hostPort[0].equals("127.0.0.1")) {
                throw new IllegalArgumentException("members must be 127.0.0.1:PORT,… for a local trial, was '" + member + "'");
            }
            all.add(Integer.parseInt(hostPort[1]));
        }
        if (!all.contains(port)) {
            all.add(port);
        }
        return Optional.of(EmbeddedCpMembers.start(clusterName, List.of(port), all, sessionTtl, heartbeat));
    }

}
