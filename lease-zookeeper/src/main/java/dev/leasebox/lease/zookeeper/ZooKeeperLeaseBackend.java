package dev.leasebox.lease.zookeeper;

import dev.leasebox.lease.LeaseManager;
import dev.leasebox.lease.spi.EmbeddedCoordinator;
import dev.leasebox.lease.spi.LeaseBackend;
import dev.leasebox.lease.spi.LeaseBackendSettings;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The {@code zookeeper} lease backend for hosts that open backends by name: the address is the
 * connect string ({@code host:port,host:port}); options {@code sessionTimeout},
 * {@code connectionTimeout} and {@code maxClockSkew} (milliseconds, or with a unit: {@code 10s}) and
 * {@code digest} ({@code user:password}).
 */
public final class ZooKeeperLeaseBackend implements LeaseBackend {

    private static final Set<String> OPTIONS = Set.of("sessionTimeout", "connectionTimeout", "digest", "maxClockSkew");

    @Override
    public String name() {
        return "zookeeper";
    }

    @Override
    public String addressFormat() {
        return "host:port[,host:port...] (a ZooKeeper connect string, no chroot)";
    }

    @Override
    public LeaseManager open(LeaseBackendSettings settings) {
        for (String option : settings.options().keySet()) {
            if (!OPTIONS.contains(option)) {
                throw new IllegalArgumentException("unknown zookeeper backend option '" + option + "': use " + OPTIONS);
            }
        }
        ZooKeeperLeaseConfig.Builder builder = ZooKeeperLeaseConfig.builder(settings.address()).namespace(settings.namespace());
        settings.option("sessionTimeout").map(ZooKeeperLeaseBackend::duration).ifPresent(builder::sessionTimeout);
        settings.option("connectionTimeout").map(ZooKeeperLeaseBackend::duration).ifPresent(builder::connectionTimeout);
        settings.option("digest").ifPresent(builder::digest);
        settings.option("maxClockSkew").map(ZooKeeperLeaseBackend::duration).ifPresent(builder::maxClockSkew);
        return ZooKeeperLeaseManager.start(builder.build());
    }

    private static Duration duration(String value) {
        String v = value.trim();
        try {
            if (v.endsWith("ms")) {
                return Duration.ofMillis(Long.parseLong(v.substring(0, v.length() - 2)));
            }
            if (v.endsWith("s")) {
                return Duration.ofSeconds(Long.parseLong(v.substring(0, v.length() - 1)));
            }
            return Duration.ofMillis(Long.parseLong(v));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("zookeeper option expects a duration like 10s or 10000, was '" + value + "'");
        }
    }

    /** Options {@code port} (default: a free one) and {@code dataDir} (default: a temporary directory, deleted on close). */
    @Override
    public Optional<EmbeddedCoordinator> startEmbedded(Map<String, String> options) {
        for (String option : options.keySet()) {
            if (!Set.of("port", "dataDir").contains(option)) {
                throw new IllegalArgumentException("unknown embedded zookeeper option '" + option + "': use port, dataDir");
            }
        }
        int port = Integer.parseInt(options.getOrDefault("port", "0"));
        try {
            boolean temporary = !options.containsKey("dataDir");
            Path dataDir = temporary ? Files.createTempDirectory("leasebox-zookeeper-") : Path.of(options.get("dataDir"));
            return Optional.of(EmbeddedZooKeeperServer.start(port, dataDir, temporary));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a data directory for an embedded ZooKeeper: " + e.getMessage(), e);
        }
    }
}
