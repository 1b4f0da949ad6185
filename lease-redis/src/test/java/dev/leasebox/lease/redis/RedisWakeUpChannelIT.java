package dev.leasebox.lease.redis;

import dev.leasebox.lease.LeaseManager;
import dev.leasebox.lease.WakeUpChannel;
import dev.leasebox.lease.contract.WakeUpChannelContract;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;

import java.net.URI;
import java.util.UUID;

import static org.awaitility.Awaitility.await;

/** The wake-up channel contract over Redis pub/sub, and a subscription that outlives a killed connection. */
class RedisWakeUpChannelIT extends WakeUpChannelContract {

    private static RedisTestServer redis;
    private static String namespace;

    @BeforeAll
    static void startRedis() {
        redis = RedisTestServer.required();
        namespace = "leasebox-it-wake-" + UUID.randomUUID().toString().substring(0, 8);
    }

    @AfterAll
    static void stopRedis() throws Exception {
        if (redis != null) {
            redis.close();
        }
    }

    @Override
    protected LeaseManager newManager() {
        return RedisLeaseManager.start(RedisLeaseConfig.builder().uri(redis.uri()).namespace(namespace).poolSize(2).build());
    }

    @Test
    void aSubscriptionWhoseConnectionIsKilledSubscribesAgainSaysSoAndHearsHints() {
        WakeUpChannel publisher = channel();
        Heard heard = subscribe(channel(), topic("killed"));

        try (Jedis admin = admin()) {
            admin.sendCommand(Protocol.Command.CLIENT, "KILL", "TYPE", "pubsub");
        }
        await("subscribed again after the kill").atMost(BOUND).until(() -> heard.subscribed.get() >= 2);
        publisher.publish(topic("killed"), "committed");

        await().atMost(BOUND).until(() -> heard.hints.contains("committed"));
    }

    private static Jedis admin() {
        URI uri = URI.create(redis.uri());
        return new Jedis(new HostAndPort(uri.getHost(), uri.getPort() == -1 ? 6379 : uri.getPort()),
                DefaultJedisClientConfig.builder().build());
    }
}
