package dev.leasebox.dist;

import dev.leasebox.claim.leased.RowBlockLeases;
import dev.leasebox.testkit.LoopbackPorts;
import com.zaxxer.hikari.HikariDataSource;
import dev.leasebox.claim.LeaseGrouping;
import dev.leasebox.claim.ReleaseAfterCompletion;
import dev.leasebox.claim.grouped.GroupedLeaseManager;
import dev.leasebox.cli.embedded.EmbeddedCoordinator;
import dev.leasebox.cli.embedded.EmbeddedCoordinators;
import dev.leasebox.jdbc.LeanDrainScenario;
import dev.leasebox.jdbc.PostgreSqlTestServer;
import dev.leasebox.lease.LeaseManager;
import dev.leasebox.lease.MonotonicClock;
import dev.leasebox.lease.spi.LeaseBackendSettings;
import dev.leasebox.lease.spi.LeaseBackends;
import dev.leasebox.testkit.RequiredServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

import java.net.URI;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Grouped row leases work over every backend: {@link LeanDrainScenario} (four lean workers drain 1,500
 * entries from PostgreSQL, one halted mid-batch) with rows grouped 16 a lease over 64 group keys,
 * lingering 200 ms, through a real Redis (127.0.0.1:6379 or {@code REDIS_URL}), an embedded ZooKeeper
 * server and three embedded Hazelcast CP members. Every entry is delivered once, and only what the
 * halted worker emitted and never completed is emitted again, under a higher fence, once its group
 * leases lapsed: a row granted from a group held already counts its lease from the group's last
 * confirmation, up to half a lease before the claim, so it may lapse that much sooner.
 */
class GroupedLeasesDrainIT {

    private static final Duration LEASE = Duration.ofSeconds(3);
    private static final Map<String, String> GROUPING = Map.of("row-groups", "64", "row-group-block", "16", "row-group-linger", "200ms");
    private static HikariDataSource admin;
    private static String schema;

    @BeforeAll
    static void openDatabase() {
        admin = PostgreSqlTestServer.dataSource(2);
        schema = PostgreSqlTestServer.newSchema(admin);
    }

    @AfterAll
    static void closeDatabase() {
        if (admin != null) {
            PostgreSqlTestServer.dropSchema(admin, schema);
            admin.close();
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"redis", "zookeeper", "hazelcast"})
    void groupedLeanWorkersDrainEveryEntryOnceAndDuplicateOnlyWhatAHaltedWorkerNeverCompleted(String backend) throws Exception {
        if (backend.equals("redis")) {
            String redis = RequiredServer.fromEnvironment("REDIS_URL")
                    .or(() -> LoopbackPorts.isListening(6379) ? Optional.of("redis://127.0.0.1:6379") : Optional.empty())
                    .orElseThrow(() -> RequiredServer.missing("Redis", "REDIS_URL", "apt-get install redis-server"));
            drain(backend, redis, Map.of(), namespace -> deleteRedisNamespace(redis, namespace));
            return;
        }
        try (EmbeddedCoordinator coordinator = EmbeddedCoordinators.start(backend, Map.of())) {
            drain(backend, coordinator.address(), coordinator.clientOptions(), namespace -> { });
        }
    }

    private static void drain(String backend, String address, Map<String, String> clientOptions,
                              java.util.function.Consumer<String> forget) throws Exception {
        Map<String, String> options = new LinkedHashMap<>(clientOptions);
        options.putAll(GROUPING);
        LeanDrainScenario.run(admin, schema, ReleaseAfterCompletion.ALWAYS, namespace -> {
            LeaseManager manager = LeaseGrouping.open(backend, new LeaseBackendSettings(address, namespace, LEASE, options),
                    MonotonicClock.system());
            assertThat(manager).isInstanceOf(GroupedLeaseManager.class);
            assertThat(RowBlockLeases.of(manager)).isEqualTo(16);
            return manager;
        }, forget, LEASE, 1_500, LEASE.dividedBy(2).minus(Duration.ofMillis(500)));
    }

    /** The shared Redis keeps nothing of this test: its group lease keys and its fence counter. */
    private static void deleteRedisNamespace(String redis, String namespace) {
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
