package dev.leasebox.lease.redis;

import dev.leasebox.testkit.LoopbackPorts;
import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseRequest;
import dev.leasebox.testkit.ManagedProcess;
import dev.leasebox.testkit.RequiredServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A master found through a real Redis Sentinel ({@code redis-server --sentinel}), no failover:
 * the manager asks the Sentinel for the master and leases on it.
 */
class RedisSentinelIT {

    private static final String MASTER = "leasebox-master";

    private static RedisTestServer master;
    private static ManagedProcess sentinel;
    private static int sentinelPort;

    @BeforeAll
    static void startMasterAndSentinel() throws IOException {
        master = RedisTestServer.startLocal();
        sentinelPort = LoopbackPorts.free();
        File dir = ManagedProcess.tempDir("sentinel");
        // Sentinel rewrites its config file, so it must be a writable file of its own.
        Path config = dir.toPath().resolve("sentinel.conf");
        Files.writeString(config, String.join("\n",
                "port " + sentinelPort,
                "bind 127.0.0.1",
                "dir " + dir.getAbsolutePath(),
                "sentinel monitor " + MASTER + " 127.0.0.1 " + master.port() + " 1",
                "sentinel down-after-milliseconds " + MASTER + " 60000",
                ""));
        Path binary = RequiredServer.binary("redis-server", "/usr/bin/redis-server")
                .orElseThrow(() -> RequiredServer.missing("redis-server (run with --sentinel)", "PATH", "apt-get install redis-server"));
        sentinel = ManagedProcess.start("redis-sentinel-" + sentinelPort, List.of(binary.toString(), config.toString(), "--sentinel"))
                .awaitListening(sentinelPort, Duration.ofSeconds(20));
    }

    @AfterAll
    static void stop() throws Exception {
        if (sentinel != null) {
            sentinel.close();
        }
        if (master != null) {
            master.close();
        }
    }

    @Test
    void leasesAreGrantedRenewedAndReleasedOnTheMasterTheSentinelNames() {
        RedisLeaseConfig config = RedisLeaseConfig.builder()
                .uri("redis://ignored-with-sentinel")
                .namespace("sentinel-it")
                .sentinel(MASTER, RedisLeaseConfig.parseNodes("127.0.0.1:" + sentinelPort))
                .build();

        try (RedisLeaseManager manager = RedisLeaseManager.start(config)) {
            assertThat(manager.describe()).contains("via Sentinel [127.0.0.1:" + sentinelPort + "]").contains(MASTER);
            List<Lease> granted = manager.acquire(new LeaseRequest(List.of("a", "b"), "w1", Duration.ofSeconds(30)));
            assertThat(granted).extracting(Lease::fence).containsExactlyInAnyOrder(1L, 2L);
            try (Jedis direct = master.admin()) {
                assertThat(direct.get("sentinel-it:lease:a")).isEqualTo(granted.stream()
                        .filter(l -> l.key().equals("a")).findFirst().orElseThrow().fence() + ":w1");
                assertThat(direct.get("sentinel-it:fence")).isEqualTo("2");
            }
            assertThat(manager.renew(granted)).hasSize(2);
            assertThat(manager.release(granted)).hasSize(2);
        }
    }
}
