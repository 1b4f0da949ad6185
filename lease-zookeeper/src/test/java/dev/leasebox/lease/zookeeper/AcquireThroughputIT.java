package dev.leasebox.lease.zookeeper;

import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseRequest;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Measures (never asserts) acquire throughput for batches of 1, 10 and 100 keys against an
 * in-process TestingServer, uncontended (one multi plus its pipelined read-back; a create2 for one
 * key) and contended (one key of each batch already held, so a second round creates the rest), with
 * plain pipelined create2 calls as a baseline in the same run. Printed as
 * {@code ZooKeeper acquire: ...} lines. Asserts only that every batch was granted as expected.
 */
class AcquireThroughputIT {

    /** Each measurement's length: 1 s in the test run (a smoke figure); {@code -Dleasebox.measure.millis=3000} for steadier ones. */
    private static final Duration RUN = Duration.ofMillis(Long.getLong("leasebox.measure.millis", 1000));

    private static TestingServer server;

    @BeforeAll
    static void startServer() {
        server = ZooKeeperTestServers.startServer();
    }

    @AfterAll
    static void stopServer() {
        ZooKeeperTestServers.closeQuietly(server);
    }

    @Test
    void measureAcquireThroughputForBatchesOfOneTenAndAHundred() throws Exception {
        try (ZooKeeperLeaseManager manager = ZooKeeperLeaseManager.start(
                     ZooKeeperTestServers.config(server.getConnectString(), Duration.ofSeconds(10)).build());
             ZooKeeperLeaseManager rival = ZooKeeperLeaseManager.start(
                     ZooKeeperTestServers.config(server.getConnectString(), Duration.ofSeconds(10)).build())) {
            measureRawCreates(manager.curator().getZookeeperClient().getZooKeeper(), 1);
            for (int batch : new int[] {1, 10, 100}) {
                measure(manager, rival, batch, false);
            }
            for (int batch : new int[] {10, 100}) {
                measure(manager, rival, batch, true);
            }
            measureRawCreates(manager.curator().getZookeeperClient().getZooKeeper(), 1);
            measureRawCreates(manager.curator().getZookeeperClient().getZooKeeper(), 100);
        }
    }

    /** Baseline in the same run: plain EPHEMERAL creates, one synchronous call or {@code pipelined} async create2 per round trip. */
    private static void measureRawCreates(org.apache.zookeeper.ZooKeeper zooKeeper, int pipelined) {
        long created = 0;
        int rounds = 0;
        long start = System.nanoTime();
        long end = start + RUN.toNanos();
        String prefix = "/leasebox-test/leases/raw-" + start + "-";
        while (System.nanoTime() < end) {
            PipelinedCalls calls = new PipelinedCalls(zooKeeper);
            List<java.util.concurrent.CompletableFuture<PipelinedCalls.Reply>> replies = new ArrayList<>();
            for (int i = 0; i < pipelined; i++) {
                replies.add(calls.createEphemeral(prefix + pipelined + "-" + rounds + "-" + i, new byte[8],
                        org.apache.zookeeper.ZooDefs.Ids.OPEN_ACL_UNSAFE));
            }
            calls.awaitAll(Duration.ofSeconds(10), "baseline creates", "test server");
            created += replies.stream().filter(r -> r.join().ok()).count();
            rounds++;
        }
        assertThat(created).isEqualTo((long) rounds * pipelined);
        double seconds = (System.nanoTime() - start) / 1e9;
        System.out.printf("ZooKeeper acquire: baseline %d plain create2 per round trip: %.0f nodes/s, %.2f ms per round trip%n",
                pipelined, created / seconds, seconds * 1000 / rounds);
    }

    private static void measure(ZooKeeperLeaseManager manager, ZooKeeperLeaseManager rival, int batch, boolean contended) {
        long granted = 0;
        int batches = 0;
        long start = System.nanoTime();
        long end = start + RUN.toNanos();
        while (System.nanoTime() < end) {
            List<String> keys = new ArrayList<>(batch);
            for (int i = 0; i < batch; i++) {
                keys.add("tp-" + contended + "-" + batch + "-" + batches + "-" + i);
            }
            if (contended) {
                rival.acquire(new LeaseRequest(List.of(keys.get(batch / 2)), "rival", Duration.ofMinutes(5)));
            }
            List<Lease> leases = manager.acquire(new LeaseRequest(keys, "measure", Duration.ofMinutes(5)));
            assertThat(leases).hasSize(contended ? batch - 1 : batch);
            granted += leases.size();
            batches++;
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        System.out.printf("ZooKeeper acquire: batch=%d %s: %.0f leases/s, %.0f acquire calls/s, %.2f ms per call%n",
                batch, contended ? "contended (1 key held: second round)" : "uncontended (one round trip)",
                granted / seconds, batches / seconds, seconds * 1000 / batches);
    }
}
