package dev.leasebox.lease.redis;

import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseManagerException;
import dev.leasebox.lease.LeaseRequest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.RedisClient;

import java.net.URI;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A service hands the manager the Jedis client it already has; the client stays the service's. */
class RedisLeaseManagerOnCallersClientIT {

    private static RedisTestServer redis;

    @BeforeAll
    static void startRedis() {
        redis = RedisTestServer.required();
    }

    @AfterAll
    static void stopRedis() throws Exception {
        redis.close();
    }

    @Test
    void leasesThroughTheCallersClientAndLeavesItOpenOnClose() {
        try (RedisClient client = RedisClient.create(URI.create(redis.uri()))) {
            String namespace = "callers-client-" + System.nanoTime();
            List<Lease> granted;
            try (RedisLeaseManager manager = RedisLeaseManager.using(client, redis.uri(), namespace)) {
                granted = manager.acquire(new LeaseRequest(List.of("a", "b"), "w1", Duration.ofSeconds(10)));
                assertThat(granted).extracting(Lease::key).containsExactlyInAnyOrder("a", "b");
                assertThat(manager.describe()).contains(namespace);
            }
            assertThat(client.ping()).isEqualTo("PONG");
            assertThat(client.keys(namespace + "*")).isNotEmpty();
        }
    }

    @Test
    void aClientThatCannotReachRedisFailsWithTheAddressNamed() {
        try (RedisClient unreachable = RedisClient.create("127.0.0.1", 1)) {
            assertThatThrownBy(() -> RedisLeaseManager.using(unreachable, "redis://127.0.0.1:1", "ns"))
                    .isInstanceOf(LeaseManagerException.class)
                    .hasMessageContaining("127.0.0.1:1");
        }
    }
}
