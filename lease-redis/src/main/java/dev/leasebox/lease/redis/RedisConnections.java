package dev.leasebox.lease.redis;

import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisSentinelClient;
import redis.clients.jedis.SslOptions;
import redis.clients.jedis.SslVerifyMode;
import redis.clients.jedis.UnifiedJedis;

import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.Set;

/** Builds the pooled Jedis client a {@link RedisLeaseConfig} describes: standalone or through Sentinel. */
final class RedisConnections {

    private RedisConnections() {
    }

    static UnifiedJedis open(RedisLeaseConfig config) {
        DefaultJedisClientConfig.Builder client = DefaultJedisClientConfig.builder()
                .connectionTimeoutMillis(millis(config.connectTimeout()))
                .socketTimeoutMillis(millis(config.socketTimeout()))
                .database(config.database())
                .clientName("leasebox");
        if (config.tls()) {
            SslOptions.Builder tls = SslOptions.builder().sslVerifyMode(SslVerifyMode.FULL).trustStoreType("PKCS12");
            config.tlsTrustStore().ifPresent(path ->
                    tls.truststore(path.toFile(), config.tlsTrustStorePassword().toCharArray()));
            client.sslOptions(tls.build());
        }
        config.user().ifPresent(client::user);
        config.password().ifPresent(client::password);

        ConnectionPoolConfig pool = new ConnectionPoolConfig();
        pool.setMaxTotal(config.poolSize());
        pool.setMaxIdle(config.poolSize());
        pool.setMinIdle(0);
        // A caller waits for a pooled connection no longer than it would wait for a new one.
        pool.setMaxWait(config.connectTimeout());

        if (config.sentinelMaster().isPresent()) {
            Set<HostAndPort> sentinels = new LinkedHashSet<>();
            config.sentinelNodes().forEach(node -> sentinels.add(new HostAndPort(node.host(), node.port())));
            DefaultJedisClientConfig sentinelClient = DefaultJedisClientConfig.builder()
                    .connectionTimeoutMillis(millis(config.connectTimeout()))
                    .socketTimeoutMillis(millis(config.socketTimeout()))
                    .clientName("leasebox-sentinel")
                    .build();
            return RedisSentinelClient.builder()
                    .masterName(config.sentinelMaster().get())
                    .sentinels(sentinels)
                    .sentinelClientConfig(sentinelClient)
                    .clientConfig(client.build())
                    .poolConfig(pool)
                    .build();
        }
        return RedisClient.builder()
                .hostAndPort(config.host(), config.port())
                .clientConfig(client.build())
                .poolConfig(pool)
                .build();
    }

    private static int millis(Duration duration) {
        return Math.toIntExact(duration.toMillis());
    }
}
