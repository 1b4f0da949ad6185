package dev.leasebox.lease.redis;

import dev.leasebox.lease.LeaseManager;
import dev.leasebox.lease.spi.LeaseBackend;
import dev.leasebox.lease.spi.LeaseBackendSettings;

import java.util.Properties;

/**
 * The {@code redis} lease backend for hosts that open backends by name: the address is the Redis URI
 * ({@code redis://[user[:password]@]host:port[/db]} or {@code rediss://…}); backend options are the
 * {@link RedisLeaseConfig} properties without prefix ({@code password}, {@code pool-size},
 * {@code sentinel.master}, …).
 */
public final class RedisLeaseBackend implements LeaseBackend {

    @Override
    public String name() {
        return "redis";
    }

    @Override
    public String addressFormat() {
        return "redis://[user[:password]@]host:port[/db] or rediss://… for TLS";
    }

    @Override
    public LeaseManager open(LeaseBackendSettings settings) {
        Properties properties = new Properties();
        settings.options().forEach(properties::setProperty);
        properties.setProperty("uri", settings.address());
        properties.setProperty("namespace", settings.namespace());
        return RedisLeaseManager.start(RedisLeaseConfig.fromProperties(properties, ""));
    }
}
