package dev.leasebox.lease.redis;

import dev.leasebox.jdbc.MariaDbWakeUpScenarios;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** {@link MariaDbWakeUpScenarios} through Redis pub/sub: each process its own manager on the same server. */
class MariaDbWakeUpsThroughRedisIT extends MariaDbWakeUpScenarios<RedisLeaseManager> {

    private static RedisTestServer redis;

    @BeforeAll
    static void startRedis() {
        redis = RedisTestServer.required();
    }

    @AfterAll
    static void stopRedis() {
        if (redis != null) {
            redis.close();
        }
    }

    @Override
    protected RedisLeaseManager manager(String namespace, int process) {
        return RedisLeaseManager.start(RedisLeaseConfig.builder().uri(redis.uri()).namespace(namespace).poolSize(2).build());
    }
}
