package dev.leasebox.jdbc;

import dev.leasebox.jdbc.lease.ClaimStyleRegistry.ClaimStyle;
import dev.leasebox.jdbc.lease.ClaimStyleRegistry;
import dev.leasebox.jdbc.store.JdbcOutboxStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The claim-style registry (V4) on a real database: workers whose claims cannot exclude each other are
 * refused with one line naming both sides; compatible ones share the table; leaving frees it; two
 * workers of different styles starting at once never both get in.
 */
abstract class ClaimStyleRegistryScenarios {

    private static final Duration VALID = Duration.ofSeconds(30);
    private static final ClaimStyle RECORDED_DB = ClaimStyle.recorded("recorded row claims through the database backend");
    private static final ClaimStyle RECORDED_REDIS = ClaimStyle.recorded("recorded row claims through redis");
    private static final ClaimStyle LEAN_REDIS = ClaimStyle.lean("row", "redis", "redis://127.0.0.1:6379", "leasebox");
    private static final ClaimStyle LEAN_REDIS_OTHER_NS = ClaimStyle.lean("row", "redis", "redis://127.0.0.1:6379", "other");
    private static final ClaimStyle LEAN_REDIS_GROUPED = ClaimStyle.lean("row", "rows grouped 4096x128", "redis",
            "redis://127.0.0.1:6379", "leasebox");
    private static final ClaimStyle LEAN_REDIS_PARTITION = ClaimStyle.lean("partition", "redis", "redis://127.0.0.1:6379",
            "leasebox");

    protected abstract DataSource dataSource();

    protected abstract DatabaseKind kind();

    protected abstract String schema();

    private JdbcOutboxStore rows;
    private final List<ClaimStyleRegistry> joined = new ArrayList<>();

    @BeforeEach
    void freshTable() {
        TableName table = TestTables.fresh(dataSource(), kind(), schema());
        rows = JdbcOutboxStore.builder(dataSource()).table(table).clock(Clock.systemUTC()).open();
    }

    @AfterEach
    void leave() {
        joined.forEach(ClaimStyleRegistry::close);
    }

    private ClaimStyleRegistry join(String owner, ClaimStyle style) {
        ClaimStyleRegistry r = ClaimStyleRegistry.join(dataSource(), rows, owner, style, VALID, why -> { });
        joined.add(r);
        return r;
    }

    @Test
    void recordedWorkersOfEveryBackendShareATable() {
        join("db-1", RECORDED_DB);
        join("redis-1", RECORDED_REDIS);
        join("db-2", RECORDED_DB);
    }

    @Test
    void aLeanWorkerIsRefusedBesideALiveRecordedWorkerWithOneLineNamingBothSides() {
        join("db-1", RECORDED_DB);
        assertThatThrownBy(() -> join("lean-1", LEAN_REDIS))
                .isInstanceOf(JdbcOutboxException.class)
                .hasMessageContaining("lean-1").hasMessageContaining(LEAN_REDIS.description())
                .hasMessageContaining("db-1").hasMessageContaining(RECORDED_DB.description())
                .hasMessageContaining("--claim-mode")
                .hasMessageNotContaining("\n");
    }

    @Test
    void aRecordedWorkerIsRefusedBesideALiveLeanWorker() {
        join("lean-1", LEAN_REDIS);
        assertThatThrownBy(() -> join("db-1", RECORDED_DB)).hasMessageContaining("lean-1")
                .hasMessageContaining(LEAN_REDIS.description());
    }

    @Test
    void leanWorkersShareATableOnlyWithTheSameGranularityBackendCoordinatorAndNamespace() {
        join("lean-1", LEAN_REDIS);
        join("lean-2", LEAN_REDIS);
        assertThatThrownBy(() -> join("lean-3", LEAN_REDIS_OTHER_NS)).hasMessageContaining("namespace leasebox");
        assertThatThrownBy(() -> join("lean-4", LEAN_REDIS_PARTITION)).hasMessageContaining("lean row claims");
    }

    @Test
    void leanRowWorkersThatKeyRowsDifferentlyAreRefused() {
        join("lean-1", LEAN_REDIS);
        assertThatThrownBy(() -> join("grouped-1", LEAN_REDIS_GROUPED))
                .hasMessageContaining("lean row claims (rows grouped 4096x128) through redis")
                .hasMessageContaining("lean-1");
        assertThat(LEAN_REDIS.key()).isEqualTo("lean row redis redis://127.0.0.1:6379 namespace leasebox");
    }

    @Test
    void aWorkerThatLeftNoLongerBlocksAnotherStyle() {
        ClaimStyleRegistry lean = join("lean-1", LEAN_REDIS);
        lean.close();
        join("db-1", RECORDED_DB);
    }

    @Test
    void aWorkerMayRejoinUnderItsOwnNameWithANewStyleWhenAlone() {
        join("w", LEAN_REDIS).close();
        join("w", RECORDED_DB);
    }

    @Test
    void twoWorkersOfDifferentStylesStartingTogetherNeverBothGetIn() throws Exception {
        for (int round = 0; round < 10; round++) {
            freshTable();
            CountDownLatch go = new CountDownLatch(1);
            ExecutorService pool = Executors.newFixedThreadPool(2);
            try {
                Callable<Boolean> recorded = () -> tryJoin(go, "db-" + 0, RECORDED_DB);
                Callable<Boolean> lean = () -> tryJoin(go, "lean-" + 0, LEAN_REDIS);
                Future<Boolean> a = pool.submit(recorded);
                Future<Boolean> b = pool.submit(lean);
                go.countDown();
                assertThat(a.get(30, TimeUnit.SECONDS) ^ b.get(30, TimeUnit.SECONDS))
                        .as("round %d: exactly one of the two got in", round).isTrue();
            } finally {
                pool.shutdownNow();
                leave();
                joined.clear();
            }
        }
    }

    private boolean tryJoin(CountDownLatch go, String owner, ClaimStyle style) throws InterruptedException {
        go.await();
        try {
            ClaimStyleRegistry r = ClaimStyleRegistry.join(dataSource(), rows, owner, style, VALID, why -> { });
            synchronized (joined) {
                joined.add(r);
            }
            return true;
        } catch (JdbcOutboxException refused) {
            return false;
        }
    }

    @Test
    void takeoversCountedOnAV7TableWaitAndAreAddedOnceV8IsApplied() {
        TableName v7 = new TableName(schema(), "outbox_v7_" + System.nanoTime());
        LeaseboxSchema scripts = new LeaseboxSchema(kind(), v7);
        scripts.apply(dataSource(), 1, 7);
        JdbcOutboxStore rowsOfV7 = JdbcOutboxStore.builder(dataSource()).table(v7).clock(Clock.systemUTC()).open();
        ClaimStyleRegistry registry = ClaimStyleRegistry.join(dataSource(), rowsOfV7, "w", RECORDED_DB,
                Duration.ofSeconds(1), why -> { });
        joined.add(registry);
        registry.takeovers().claimsTakenOver(java.util.Set.of(1L, 2L));
        await().atMost(Duration.ofSeconds(30)).until(() -> registry.tableCountsTakeovers().equals(java.util.Optional.of(false)));
        assertThat(registry.unwrittenTakeovers()).as("kept until V8 is applied").isEqualTo(2);

        scripts.migrate(dataSource());
        await().atMost(Duration.ofSeconds(30)).until(() -> new OutboxTableStatus(dataSource(), v7).takenOverTotal(),
                count -> count.orElse(-1) == 2);
        registry.takeovers().claimsTakenOver(java.util.Set.of(3L));
        registry.close();
        assertThat(new OutboxTableStatus(dataSource(), v7).takenOverTotal()).as("the last one added at close").hasValue(3);
    }

    @Test
    void aTableWithoutV4NamesTheScript() {
        TableName old = new TableName(schema(), "outbox_v3_" + System.nanoTime());
        new LeaseboxSchema(kind(), old).apply(dataSource(), 1, 3);
        JdbcOutboxStore v3 = JdbcOutboxStore.builder(dataSource()).table(old).clock(Clock.systemUTC()).open();
        assertThatThrownBy(() -> ClaimStyleRegistry.join(dataSource(), v3, "w", RECORDED_DB, VALID, why -> { }))
                .isInstanceOf(JdbcOutboxException.class)
                .hasMessageContaining("V4__add_claim_styles.sql").hasMessageContaining("leasebox schema --apply");
    }
}
