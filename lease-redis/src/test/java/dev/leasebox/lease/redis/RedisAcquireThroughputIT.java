package dev.leasebox.lease.redis;

import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseRequest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Measures, and only logs, single-threaded acquire throughput for batches of 1, 10 and 100 keys
 * (each acquire timed alone; the release after it is not). Speed is never asserted; what is asserted
 * is that every key of every batch was granted, so the figures count real grants.
 */
class RedisAcquireThroughputIT {

    private static final Logger log = LoggerFactory.getLogger(RedisAcquireThroughputIT.class);
    private static final int KEYS_PER_RUN = 20_000;

    private static RedisTestServer redis;
    private static RedisLeaseManager manager;

    @BeforeAll
    static void start() {
        redis = RedisTestServer.required();
        manager = RedisLeaseManager.start(RedisLeaseConfig.builder().uri(redis.uri())
                .namespace("throughput-it-" + UUID.randomUUID().toString().substring(0, 8)).build());
    }

    @AfterAll
    static void stop() throws Exception {
        if (manager != null) {
            manager.close();
        }
        if (redis != null) {
            redis.close();
        }
    }

    @Test
    void everyKeyOfEveryBatchIsGrantedAndTheRatesAreLogged() {
        for (int batch : new int[] {1, 10, 100}) {
            measure("warm-up " + batch, batch, 5_000);
        }
        for (int batch : new int[] {1, 10, 100}) {
            measure("batch " + batch, batch, KEYS_PER_RUN);
        }
    }

    private static void measure(String label, int batch, int totalKeys) {
        int calls = totalKeys / batch;
        long acquireNanos = 0;
        int granted = 0;
        for (int call = 0; call < calls; call++) {
            List<String> keys = new ArrayList<>(batch);
            for (int i = 0; i < batch; i++) {
                keys.add(label + "-" + call + "-" + i);
            }
            LeaseRequest request = new LeaseRequest(keys, "throughput", Duration.ofSeconds(60));
            long start = System.nanoTime();
            List<Lease> leases = manager.acquire(request);
            acquireNanos += System.nanoTime() - start;
            granted += leases.size();
            manager.release(leases);
        }
        assertThat(granted).as(label).isEqualTo(calls * batch);
        double seconds = acquireNanos / 1e9;
        log.info(String.format("Redis acquire %-13s: %6d calls, %8.0f keys/s, %7.0f calls/s, %6.3f ms/call (%s)",
                label, calls, granted / seconds, calls / seconds, acquireNanos / 1e6 / calls, redis.uri()));
    }
}
