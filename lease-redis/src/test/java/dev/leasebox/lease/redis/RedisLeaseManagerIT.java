package dev.leasebox.lease.redis;

import dev.leasebox.lease.LeaseManager;
import dev.leasebox.lease.contract.LeaseManagerContract;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.util.UUID;

/**
 * The whole lease contract against a real Redis: every manager is a separate pooled client, as a
 * separate node would have, all in one namespace of this test class.
 */
class RedisLeaseManagerIT extends LeaseManagerContract {

    private static RedisTestServer redis;
    private static String namespace;

    @BeforeAll
    static void startRedis() {
        redis = RedisTestServer.required();
        namespace = "leasebox-it-contract-" + UUID.randomUUID().toString().substring(0, 8);
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
}
