package dev.leasebox.lease.redis;

import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseRequest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Counts what Redis executed ({@code CONFIG RESETSTAT}, then {@code INFO commandstats}) around one
 * batched call of 100 keys: exactly one {@code EVALSHA} reached Redis, and every per-key command
 * ran inside it. Commands run by a script are counted by Redis too, which is what shows where they ran.
 */
class RedisOneRoundTripPerBatchIT {

    private static final int BATCH = 100;

    private static RedisTestServer redis;
    private static RedisLeaseManager manager;

    @BeforeAll
    static void start() {
        redis = RedisTestServer.startLocal();
        manager = RedisLeaseManager.start(RedisLeaseConfig.builder().uri(redis.uri()).namespace("round-trip-it").poolSize(1).build());
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
    void acquiringAHundredKeysIsOneEvalshaWithASetPerKeyAndOneReadAndOneWriteOfTheCounter() {
        List<String> keys = keys("acquire");

        resetStats();
        List<Lease> granted = manager.acquire(new LeaseRequest(keys, "w1", Duration.ofSeconds(30)));

        assertThat(granted).hasSize(BATCH);
        assertThat(commandCalls()).as("not an EXISTS, an INCR and a SET per key").isEqualTo(Map.of("evalsha", 1L, "get", 1L, "set", 101L));
        assertThat(granted).extracting(Lease::fence).as("the call's fences follow each other").doesNotHaveDuplicates()
                .isSorted().satisfies(fences -> assertThat(fences.get(BATCH - 1) - fences.get(0)).isEqualTo(BATCH - 1));
    }

    @Test
    void keysAlreadyHeldTakeNoFenceAndTheLimitStopsTheSets() {
        List<String> keys = keys("limited");
        Lease first = manager.acquire(new LeaseRequest(keys.subList(0, 1), "w1", Duration.ofSeconds(30))).get(0);

        resetStats();
        List<Lease> granted = manager.acquire(new LeaseRequest(keys, "w2", Duration.ofSeconds(30)).limitedTo(10));

        assertThat(granted).extracting(Lease::fence).as("the held key burnt no fence")
                .containsExactlyElementsOf(LongStream.rangeClosed(first.fence() + 1, first.fence() + 10).boxed().toList());
        assertThat(commandCalls()).as("the held key and ten grants are tried; the rest are not")
                .isEqualTo(Map.of("evalsha", 1L, "get", 1L, "set", 12L));
    }

    @Test
    void renewingAHundredLeasesIsOneEvalsha() {
        List<Lease> granted = manager.acquire(new LeaseRequest(keys("renew"), "w1", Duration.ofSeconds(30)));

        resetStats();
        List<Lease> renewed = manager.renew(granted);

        assertThat(renewed).hasSize(BATCH);
        assertThat(commandCalls()).isEqualTo(Map.of("evalsha", 1L, "get", 100L, "pexpire", 100L));
    }

    @Test
    void releasingAHundredLeasesIsOneEvalsha() {
        List<Lease> granted = manager.acquire(new LeaseRequest(keys("release"), "w1", Duration.ofSeconds(30)));

        resetStats();
        List<Lease> released = manager.release(granted);

        assertThat(released).hasSize(BATCH);
        assertThat(commandCalls()).isEqualTo(Map.of("evalsha", 1L, "get", 100L, "del", 100L));
    }

    private static List<String> keys(String prefix) {
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < BATCH; i++) {
            keys.add(prefix + "-" + i);
        }
        return keys;
    }

    private static void resetStats() {
        try (Jedis admin = redis.admin()) {
            admin.configResetStat();
        }
    }

    /** Calls per command since the reset, leaving out the admin connection's own INFO and CONFIG. */
    private static Map<String, Long> commandCalls() {
        String info;
        try (Jedis admin = redis.admin()) {
            info = admin.info("commandstats");
        }
        Map<String, Long> calls = new TreeMap<>();
        for (String line : info.split("\r?\n")) {
            if (!line.startsWith("cmdstat_")) {
                continue;
            }
            String command = line.substring("cmdstat_".length(), line.indexOf(':'));
            if (command.equals("info") || command.startsWith("config")) {
                continue;
            }
            String count = line.substring(line.indexOf("calls=") + "calls=".length());
            calls.put(command, Long.parseLong(count.substring(0, count.indexOf(','))));
        }
        return calls;
    }
}
