package dev.leasebox.lease.hazelcast;

import dev.leasebox.lease.LeaseManager;
import dev.leasebox.lease.spi.Durations;
import dev.leasebox.lease.spi.LeaseBackend;
import dev.leasebox.lease.spi.LeaseBackendSettings;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

/**
 * The {@code hazelcast} lease backend for hosts that open backends by name, as a client of an existing
 * CP cluster, in the settings' namespace (locks {@code <namespace>/<key>}, as
 * {@link HazelcastLeaseConfig.Builder#namespace}). The address is {@code host:port,host:port} or {@code file:PATH}
 * (a client XML/YAML file). Options: {@code cluster-name} (default {@code leasebox}), {@code user} and
 * {@code password}, {@code session-ttl} and {@code heartbeat} — the CP session settings the cluster runs with,
 * which a client cannot read (default 300s and 5s, Hazelcast's own defaults; the embedded members of
 * {@code leasebox hazelcast-member} and the demo use 10s and 1s); {@code operation-timeout} — how long one lock,
 * renewal check or unlock may wait for the cluster (default 15s); {@code peer-ranks} (default true; see
 * {@link HazelcastLeaseConfig.Builder#peerRanks(boolean)}). Durations as {@link Durations} reads them.
 */
public final class HazelcastLeaseBackend implements LeaseBackend {

    static final Set<String> OPTIONS = Set.of("cluster-name", "user", "password", "session-ttl", "heartbeat", "peer-ranks",
            "operation-timeout");

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
            if (!OPTIONS.contains(option)) {
                throw new IllegalArgumentException("unknown hazelcast backend option '" + option + "': use one of "
                        + new TreeSet<>(OPTIONS));
            }
        }
        HazelcastLeaseConfig.Builder builder;
        if (settings.address().startsWith("file:")) {
            builder = HazelcastLeaseConfig.clientFromFile(Path.of(settings.address().substring("file:".length())));
        } else {
            List<String> addresses = Arrays.stream(settings.address().split(",")).map(String::trim)
                    .filter(a -> !a.isEmpty()).toList();
            builder = HazelcastLeaseConfig.client(addresses, settings.option("cluster-name").orElse("leasebox"));
        }
        settings.option("user").ifPresent(user -> builder.credentials(user, settings.option("password").orElse("")));
        Duration ttl = duration(settings, "session-ttl").orElse(HazelcastLeaseConfig.DEFAULT_SESSION_TTL);
        Duration heartbeat = duration(settings, "heartbeat").orElse(HazelcastLeaseConfig.DEFAULT_HEARTBEAT);
        settings.option("peer-ranks").map(HazelcastLeaseBackend::onOff).ifPresent(builder::peerRanks);
        duration(settings, "operation-timeout").ifPresent(builder::operationTimeout);
        builder.cpSession(ttl, heartbeat).leaseTtl(settings.leaseTtl()).namespace(settings.namespace());
        return HazelcastLeaseManager.start(builder.build());
    }

    private static java.util.Optional<Duration> duration(LeaseBackendSettings settings, String option) {
        return settings.option(option).map(value -> {
            Duration d = Durations.parse(option, value);
            if (d.isZero() || d.isNegative()) {
                throw new IllegalArgumentException(option + ": must be positive, was '" + value + "'");
            }
            return d;
        });
    }

    private static boolean onOff(String value) {
        return switch (value.trim().toLowerCase(Locale.ROOT)) {
            case "true", "on" -> true;
            case "false", "off" -> false;
            default -> throw new IllegalArgumentException("peer-ranks: expects true or false, was '" + value + "'");
        };
    }
}
