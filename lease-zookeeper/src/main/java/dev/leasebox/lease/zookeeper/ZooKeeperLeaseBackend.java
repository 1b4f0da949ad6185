package dev.leasebox.lease.zookeeper;

import dev.leasebox.lease.LeaseManager;
import dev.leasebox.lease.spi.Durations;
import dev.leasebox.lease.spi.LeaseBackend;
import dev.leasebox.lease.spi.LeaseBackendSettings;

import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The {@code zookeeper} lease backend for hosts that open backends by name, in the settings' namespace (leases
 * under {@code /<namespace>/leases}, as {@link ZooKeeperLeaseConfig.Builder#namespace}): the address is the
 * connect string ({@code host:port,host:port}); options {@code session-timeout}, {@code connection-timeout} and
 * {@code max-clock-skew} (durations as {@link Durations} reads them: {@code 10s}, {@code 500ms}) and {@code digest}
 * ({@code user:password}).
 */
public final class ZooKeeperLeaseBackend implements LeaseBackend {

    static final Set<String> OPTIONS = Set.of("session-timeout", "connection-timeout", "digest", "max-clock-skew");

    @Override
    public String name() {
        return "zookeeper";
    }

    @Override
    public String addressFormat() {
        return "host:port[,host:port...] (a ZooKeeper connect string, no chroot)";
    }

    /** {@code connect-string}, as {@link ZooKeeperLeaseConfig}'s messages name the ensemble. */
    @Override
    public String addressKey() {
        return "connect-string";
    }

    @Override
    public LeaseManager open(LeaseBackendSettings settings) {
        for (String option : settings.options().keySet()) {
            if (!OPTIONS.contains(option)) {
                throw new IllegalArgumentException("unknown zookeeper backend option '" + option + "': use one of "
                        + new TreeSet<>(OPTIONS));
            }
        }
        ZooKeeperLeaseConfig.Builder builder = ZooKeeperLeaseConfig.builder(settings.address()).namespace(settings.namespace());
        duration(settings, "session-timeout").ifPresent(builder::sessionTimeout);
        duration(settings, "connection-timeout").ifPresent(builder::connectionTimeout);
        settings.option("digest").ifPresent(builder::digest);
        duration(settings, "max-clock-skew").ifPresent(builder::maxClockSkew);
        return ZooKeeperLeaseManager.start(builder.build());
    }

    private static Optional<Duration> duration(LeaseBackendSettings settings, String option) {
        return settings.option(option).map(value -> Durations.parse(option, value));
    }
}
