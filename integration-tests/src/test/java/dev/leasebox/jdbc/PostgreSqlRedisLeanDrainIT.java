package dev.leasebox.jdbc;

import dev.leasebox.testkit.LoopbackPorts;
import com.zaxxer.hikari.HikariDataSource;
import dev.leasebox.claim.ReleaseAfterCompletion;
import dev.leasebox.lease.spi.LeaseBackendSettings;
import dev.leasebox.lease.spi.LeaseBackends;
import dev.leasebox.testkit.RequiredServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

import java.net.URI;
import java.time.Duration;
import java.util.Map;


/**
 * {@link LeanDrainScenario} through a real Redis: four lean workers drain 3,000 entries, one halted
 * mid-batch; run with both release policies. Redis: {@code REDIS_URL}, else 127.0.0.1:6379.
 */
class PostgreSqlRedisLeanDrainIT {

    private static final int ENTRIES = 3_000;
    private static final Duration LEASE = Duration.ofSeconds(3);

    private static HikariDataSource admin;
    private static String schema;
    private static String redis;

    @BeforeAll
    static void openServers() {
        redis = RequiredServer.fromEnvironment("REDIS_URL")
                .or(() -> LoopbackPorts.isListening(6379) ? java.util.Optional.of("redis://127.0.0.1:6379") : java.util.Optional.empty())
                .orElseThrow(() -> RequiredServer.missing("Redis", "REDIS_URL", "apt-get install redis-server"));
        admin = PostgreSqlTestServer.dataSource(2);
        schema = PostgreSqlTestServer.newSchema(admin);
    }

    @AfterAll
    static void closeServers() {
        if (admin != null) {
            PostgreSqlTestServer.dropSchema(admin, schema);
            admin.close();
        }
    }

    @ParameterizedTest
    @EnumSource(ReleaseAfterCompletion.class)
    void leanWorkersDrainEveryEntryOnceAndDuplicateOnlyWhatAHaltedWorkerEmittedAndNeverCompleted(
            ReleaseAfterCompletion release) throws Exception {
        LeanDrainScenario.run(admin, schema, release,
                namespace -> LeaseBackends.named("redis").open(new LeaseBackendSettings(redis, namespace, LEASE, Map.of())),
                PostgreSqlRedisLeanDrainIT::deleteNamespace, LEASE, ENTRIES);
    }

    /** The shared Redis keeps nothing of this test: its lease keys and its fence counter. */
    private static void deleteNamespace(String namespace) {
        try (Jedis jedis = new Jedis(URI.create(redis))) {
            ScanParams match = new ScanParams().match(namespace + ":*").count(1000);
            String cursor = ScanParams.SCAN_POINTER_START;
            do {
                ScanResult<String> page = jedis.scan(cursor, match);
                if (!page.getResult().isEmpty()) {
                    jedis.del(page.getResult().toArray(new String[0]));
                }
                cursor = page.getCursor();
            } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
        }
    }
}
