package dev.leasebox.lease.redis;

import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseManager;
import dev.leasebox.lease.LeaseRequest;
import dev.leasebox.lease.spi.LeaseBackendSettings;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/** The backend opened by name, as the CLI and the starter open it: what its namespace means. */
class RedisLeaseBackendIT {

    private static final Duration TTL = Duration.ofSeconds(30);

    private static RedisTestServer redis;

    @BeforeAll
    static void startRedis() {
        redis = RedisTestServer.required();
    }

    @AfterAll
    static void stopRedis() throws Exception {
        if (redis != null) {
            redis.close();
        }
    }

    private static LeaseManager byName(String namespace) {
        return new RedisLeaseBackend().open(new LeaseBackendSettings(redis.uri(), namespace, TTL, Map.of("pool-size", "2",
                "connect-timeout", "2s")));
    }

    /**
     * A manager built in code with the default namespace and one opened by name in {@code leasebox} use the same keys,
     * so they contend; another namespace uses other keys.
     */
    @Test
    void aManagerBuiltInCodeAndOneOpenedByNameInOneNamespaceContendForOneLease() {
        List<String> keys = List.of("by-name-" + UUID.randomUUID(), "by-name-" + UUID.randomUUID());
        try (RedisLeaseManager inCode = RedisLeaseManager.start(RedisLeaseConfig.builder().uri(redis.uri()).poolSize(2).build());
             LeaseManager byName = byName(LeaseBackendSettings.DEFAULT_NAMESPACE);
             LeaseManager elsewhere = byName("other-" + UUID.randomUUID().toString().substring(0, 8))) {
            List<Lease> held = inCode.acquire(new LeaseRequest(keys, "in-code", TTL));
            assertThat(held).hasSize(keys.size());
            assertThat(byName.acquire(new LeaseRequest(keys, "by-name", TTL))).as("same namespace: held in code").isEmpty();
            List<Lease> other = elsewhere.acquire(new LeaseRequest(keys, "other", TTL));
            assertThat(other).as("another namespace uses other keys").hasSize(keys.size());

            inCode.release(held);
            List<Lease> next = byName.acquire(new LeaseRequest(keys, "by-name", TTL));
            assertThat(next).as("released in code, granted by name").hasSize(keys.size());
            byName.release(next);
            elsewhere.release(other);
        }
    }
}
