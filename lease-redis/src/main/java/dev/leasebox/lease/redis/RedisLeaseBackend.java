package dev.leasebox.lease.redis;

import dev.leasebox.lease.LeaseManager;
import dev.leasebox.lease.spi.LeaseBackend;
import dev.leasebox.lease.spi.LeaseBackendSettings;

import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;

/**
 * The {@code redis} lease backend for hosts that open backends by name, in the settings' namespace (keys
 * {@code <namespace>:…}, as {@link RedisLeaseConfig.Builder#namespace}): the address is the Redis URI
 * ({@code redis://[user[:password]@]host:port[/db]} or {@code rediss://…}); backend options are the
 * {@link RedisLeaseConfig} properties without prefix ({@code password}, {@code pool-size}, {@code connect-timeout},
 * {@code sentinel-master}, …).
 */
public final class RedisLeaseBackend implements LeaseBackend {

    /** The options {@link RedisLeaseConfig#fromProperties} reads (the address and namespace come as settings). */
    static final Set<String> OPTIONS = Set.of("user", "password", "connect-timeout", "socket-timeout", "pool-size",
            "tls-truststore", "tls-truststore-password", "sentinel-master", "sentinel-nodes");

    @Override
    public String name() {
        return "redis";
    }

    @Override
    public String addressFormat() {
        return "redis://[user[:password]@]host:port[/db] or rediss://… for TLS";
    }

    /** {@code uri}, the {@link RedisLeaseConfig} property of the address. */
    @Override
    public String addressKey() {
        return "uri";
    }

    @Override
    public LeaseManager open(LeaseBackendSettings settings) {
        for (String option : settings.options().keySet()) {
            if (!OPTIONS.contains(option)) {
                throw new IllegalArgumentException("unknown redis backend option '" + option + "': use one of "
                        + new TreeSet<>(OPTIONS));
            }
        }
        Properties properties = new Properties();
        settings.options().forEach(properties::setProperty);
        properties.setProperty("uri", settings.address());
        properties.setProperty("namespace", settings.namespace());
        return RedisLeaseManager.start(RedisLeaseConfig.fromProperties(properties, ""));
    }
}
