package dev.leasebox.dist;

import dev.leasebox.testing.Crash;
import dev.leasebox.testkit.LoopbackPorts;
import com.zaxxer.hikari.HikariDataSource;
import dev.leasebox.drain.DrainListener;
import dev.leasebox.drain.DrainOptions;
import dev.leasebox.drain.OutboxDrain;
import dev.leasebox.jdbc.DatabaseKind;
import dev.leasebox.jdbc.LeaseboxSchema;
import dev.leasebox.jdbc.OutboxWriter;
import dev.leasebox.jdbc.PostgreSqlTestServer;
import dev.leasebox.jdbc.TableName;
import dev.leasebox.jdbc.TestDataSources;
import dev.leasebox.jdbc.store.JdbcOutboxStore;
import dev.leasebox.lease.LeaseManager;
import dev.leasebox.lease.spi.LeaseBackendSettings;
import dev.leasebox.lease.spi.LeaseBackends;
import dev.leasebox.metrics.MeteredLeaseManager;
import dev.leasebox.provider.ProviderOutcome;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import redis.clients.jedis.Jedis;
import dev.leasebox.claim.leased.LeasedOutboxClaimStore;
import dev.leasebox.outbox.Completion;
import dev.leasebox.outbox.CompletionOutcome;
import dev.leasebox.outbox.OutboxClaim;
import dev.leasebox.outbox.OutboxMessage;
import dev.leasebox.testkit.ManagedProcess;
import dev.leasebox.testkit.RequiredServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Redis loses its data mid-drain: three workers drain a PostgreSQL outbox through a redis-server
 * the test owns. One worker crashes mid-batch, leaving claims (and high-water marks) on its rows;
 * then the server is SIGKILLed and restarted empty on the same port, so its fence counter starts
 * again at 1. The drain carries on: the store refuses the small new fences on the orphaned rows, the
 * workers raise Redis's fence floor to the outbox's high-water mark and take them, new entries flow,
 * and every row ends DELIVERED with its completion accepted only from the holder of its newest
 * fence — checked against the table.
 */
class RedisRestartedEmptyMidDrainIT {

    private static final int ENTRIES = 3_000;
    private static final int MORE = 100; // fewer than the orphans' high-water marks, so the floor shows in the counter
    private static final Duration LEASE = Duration.ofSeconds(3);

    private HikariDataSource admin;
    private HikariDataSource outbox;
    private String schema;
    private int port;
    private String redisServer;
    private ManagedProcess redis;
    private final List<AutoCloseable> closeables = new ArrayList<>();

    /** Per entry: the highest token any worker was granted; and the token of each accepted completion. */
    private final Map<Long, Long> highestGranted = new ConcurrentHashMap<>();
    private final Map<Long, Long> acceptedCompletionToken = new ConcurrentHashMap<>();
    /** Entries whose DELIVERED completion the store accepted twice (must stay empty). */
    private final java.util.Set<Long> completedTwice = ConcurrentHashMap.newKeySet();
    private final List<SimpleMeterRegistry> registries = new ArrayList<>();
    private final CountDownLatch victimBlocked = new CountDownLatch(1);
    private final CountDownLatch victimReleased = new CountDownLatch(1);
    private volatile boolean blockVictim;
    private String url;

    @BeforeEach
    void start() throws SQLException {
        admin = PostgreSqlTestServer.dataSource(1);
        schema = PostgreSqlTestServer.newSchema(admin);
        url = PostgreSqlTestServer.jdbcUrlFor(schema);
        outbox = TestDataSources.pooled(url, "", "", 8);
        new LeaseboxSchema(DatabaseKind.POSTGRESQL, TableName.DEFAULT).applyAll(outbox);
        enqueue(ENTRIES);
        port = LoopbackPorts.free();
        redisServer = RequiredServer.binary("redis-server", "/usr/bin/redis-server")
                .orElseThrow(() -> RequiredServer.missing("redis-server", "PATH", "apt-get install redis-server")).toString();
        redis = startRedis();
    }

    private ManagedProcess startRedis() {
        return ManagedProcess.start("redis", List.of(redisServer, "--port", Integer.toString(port), "--bind", "127.0.0.1",
                "--save", "", "--appendonly", "no")).awaitListening(port, Duration.ofSeconds(20));
    }

    @AfterEach
    void stop() {
        victimReleased.countDown();
        for (int i = closeables.size() - 1; i >= 0; i--) {
            try {
                closeables.get(i).close();
            } catch (Exception ignored) {
                // stopping what the test started; the assertions already ran
            }
        }
        redis.close();
        outbox.close();
        PostgreSqlTestServer.dropSchema(admin, schema);
        admin.close();
    }

    @Test
    void theDrainCarriesOnAndNoStaleCompletionIsAccepted() throws SQLException, InterruptedException {
        Clock clock = Clock.systemUTC();
        List<OutboxDrain> drains = new ArrayList<>();
        for (int i = 1; i <= 3; i++) {
            boolean victim = i == 1;
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            registries.add(registry);
            LeaseManager leases = new MeteredLeaseManager(LeaseBackends.named("redis").open(new LeaseBackendSettings(
                    "redis://127.0.0.1:" + port, schema, LEASE, Map.of())), registry);
            closeables.add(leases);
            JdbcOutboxStore store = JdbcOutboxStore.builder(outbox).clock(clock).candidateSpread(4).open();
            OutboxDrain drain = OutboxDrain.builder()
                    .store(LeasedOutboxClaimStore.open(store, leases, clock))
                    .provider(envelope -> {
                        if (victim && blockVictim) {
                            victimBlocked.countDown();
                            victimReleased.await(); // held mid-batch until the drain is halted (interrupted)
                        }
                        return ProviderOutcome.delivered();
                    })
                    .options(DrainOptions.builder().owner("worker-" + i).batchSize(25).leaseDuration(LEASE)
                            .idlePolling(Duration.ofMillis(20), Duration.ofMillis(200)).build())
                    .clock(clock).listener(new Recorder()).build();
            closeables.add(drain);
            drains.add(drain);
        }
        drains.forEach(OutboxDrain::start);

        // worker-1 stops mid-batch holding claims; the others drain everything else around it
        await("some entries delivered").atMost(Duration.ofMinutes(2)).until(() -> delivered() >= ENTRIES / 10);
        blockVictim = true;
        assertThat(victimBlocked.await(2, TimeUnit.MINUTES)).as("worker-1 blocked inside an emission").isTrue();
        await("everything but worker-1's claims delivered").atMost(Duration.ofMinutes(2))
                .until(() -> notDelivered() > 0 && notDelivered() == claimedBy("worker-1"));
        long orphans = notDelivered();
        Crash.halt(drains.get(0)); // a crash: its claims stay on their rows, with their fences as high-water marks

        redis.kill();
        redis = startRedis(); // empty: its fence counter starts again at 1
        double grantedBeforeRestart = granted();
        enqueue(MORE);

        await("every entry delivered after the restart").atMost(Duration.ofMinutes(3))
                .until(() -> delivered() == ENTRIES + MORE);
        drains.forEach(OutboxDrain::close);
        assertThat(orphans).as("claims worker-1 left behind").isPositive();

        // Every grant INCRs the namespace's counter once; without a raised floor the empty server's
        // counter would equal the grants made since the restart.
        try (Jedis jedis = new Jedis("127.0.0.1", port)) {
            long counter = Long.parseLong(jedis.get(schema + ":fence"));
            assertThat((double) counter).as("the fence floor was raised above the grants since the restart")
                    .isGreaterThan(granted() - grantedBeforeRestart);
        }
        try (Connection c = outbox.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("select id, status, claim_token, fence_high_water from leasebox_outbox")) {
            int rows = 0;
            while (rs.next()) {
                rows++;
                long id = rs.getLong(1);
                assertThat(rs.getString(2)).isEqualTo("DELIVERED");
                assertThat(rs.getObject(3)).as("claim cleared on entry %d", id).isNull();
                long highWater = rs.getLong(4);
                assertThat(highWater).as("entry %d's high-water mark is its newest grant", id).isEqualTo(highestGranted.get(id));
                assertThat(acceptedCompletionToken.get(id)).as("entry %d was completed under its newest fence", id)
                        .isEqualTo(highWater);
            }
            assertThat(rows).isEqualTo(ENTRIES + MORE);
            assertThat(completedTwice).as("entries whose delivery the store accepted twice").isEmpty();
        }
    }

    /** Enqueues {@code count} entries in one transaction. */
    private void enqueue(int count) throws SQLException {
        OutboxWriter writer = OutboxWriter.of(TableName.DEFAULT, Clock.systemUTC());
        try (Connection c = outbox.getConnection()) {
            c.setAutoCommit(false);
            for (int i = 0; i < count; i++) {
                writer.enqueue(c, OutboxMessage.of("leasebox.test", ("{\"seq\":" + i + "}").getBytes(StandardCharsets.UTF_8)));
            }
            c.commit();
        }
        writer.committed();
    }

    private double granted() {
        return registries.stream().mapToDouble(r -> r.counter("leasebox.leases", "event", "granted").count()).sum();
    }

    private long notDelivered() throws SQLException {
        return count("select count(*) from leasebox_outbox where status <> 'DELIVERED'");
    }

    private long claimedBy(String owner) throws SQLException {
        return count("select count(*) from leasebox_outbox where status <> 'DELIVERED' and claim_owner = '" + owner + "'");
    }

    private long count(String sql) throws SQLException {
        try (Connection c = outbox.getConnection(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private long delivered() throws SQLException {
        try (Connection c = outbox.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("select count(*) from leasebox_outbox where status = 'DELIVERED'")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** Records each worker's grants and which of its completions the store accepted. */
    private final class Recorder implements DrainListener {
        private final Map<Long, Long> myTokens = new ConcurrentHashMap<>();

        @Override
        public void claimed(List<OutboxClaim> claims) {
            for (OutboxClaim claim : claims) {
                myTokens.put(claim.entryId(), claim.token());
                highestGranted.merge(claim.entryId(), claim.token(), Math::max);
            }
        }

        @Override
        public void completed(long entryId, Completion completion, CompletionOutcome outcome) {
            if (completion instanceof Completion.Delivered) {
                Long previous = acceptedCompletionToken.put(entryId, myTokens.get(entryId));
                if (previous != null) {
                    // asserted on the test thread: an AssertionError here would only end this drain thread
                    completedTwice.add(entryId);
                }
            }
        }
    }
}
