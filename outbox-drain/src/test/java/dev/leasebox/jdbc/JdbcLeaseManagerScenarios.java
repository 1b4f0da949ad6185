package dev.leasebox.jdbc;

import dev.leasebox.jdbc.lease.JdbcLeaseManager;
import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseLoss;
import dev.leasebox.lease.LeaseManagerException;
import dev.leasebox.lease.LeaseRequest;
import dev.leasebox.testkit.MutableClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What {@link JdbcLeaseManager} guarantees beyond the lease contract kit, run against each database
 * by a subclass: every test gets a fresh, explicitly migrated table (V1 to V3) in the class's schema.
 */
abstract class JdbcLeaseManagerScenarios {

    private static final AtomicInteger TABLES = new AtomicInteger();
    static final Duration TTL = Duration.ofSeconds(30);
    static final int BATCH = 100;

    protected final MutableClock clock = MutableClock.startingAt2026();
    protected TableName table;
    protected JdbcLeaseManager manager;

    protected abstract DataSource dataSource();

    protected abstract String schema();

    protected abstract DatabaseKind kind();

    /** A fresh table in the class's schema with migrations V1..{@code upToVersion} applied. */
    protected TableName newTable(int upToVersion) {
        TableName name = new TableName(schema(), "leases_" + TABLES.incrementAndGet());
        new LeaseboxSchema(kind(), name).apply(dataSource(), 1, upToVersion);
        return name;
    }

    @BeforeEach
    void openManager() {
        table = newTable(LeaseboxSchema.LATEST_VERSION);
        manager = JdbcLeaseManager.builder(dataSource()).table(table).clock(clock).open();
    }

    @AfterEach
    void closeManager() {
        manager.close();
    }

    private static List<String> keys(String prefix, int count) {
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            keys.add("slot-" + prefix + "-" + i);
        }
        return keys;
    }

    // ---- one statement per call -------------------------------------------------------------------

    @Test
    void acquireRenewAndReleaseOfAHundredKeysAreOneStatementOnOneConnectionEach() {
        CountingDataSource counting = new CountingDataSource(dataSource());
        JdbcLeaseManager counted = JdbcLeaseManager.builder(counting.dataSource()).table(table).clock(clock).open();
        List<String> keys = keys("batch", BATCH);

        counting.reset();
        List<Lease> granted = counted.acquire(new LeaseRequest(keys, "w1", TTL));
        assertThat(granted).hasSize(BATCH);
        assertThat(counting.executed()).as("statements run by acquire of %d keys", BATCH).hasSizeLessThanOrEqualTo(batchStatements(BATCH));
        assertThat(counting.connections()).isEqualTo(1);

        clock.advance(Duration.ofSeconds(10));
        counting.reset();
        List<Lease> renewed = counted.renew(granted);
        assertThat(renewed).hasSize(BATCH);
        assertThat(counting.executed()).as("statements run by renew of %d leases", BATCH).hasSizeLessThanOrEqualTo(batchStatements(BATCH));
        assertThat(counting.connections()).isEqualTo(1);

        counting.reset();
        assertThat(counted.release(renewed)).hasSize(BATCH);
        assertThat(counting.executed()).as("statements run by release of %d leases", BATCH).hasSizeLessThanOrEqualTo(batchStatements(BATCH));
        assertThat(counting.connections()).isEqualTo(1);

        counting.reset();
        List<Lease> partly = counted.acquire(new LeaseRequest(keys("batch", BATCH + 50), "w2", TTL));
        assertThat(partly).as("the released keys and 50 new ones").hasSize(BATCH + 50);
        assertThat(counting.executed()).as("statements run by acquire of %d keys", BATCH + 50).hasSizeLessThanOrEqualTo(batchStatements(BATCH + 50));
    }

    @Test
    void emptyCallsRunNoStatement() {
        CountingDataSource counting = new CountingDataSource(dataSource());
        JdbcLeaseManager counted = JdbcLeaseManager.builder(counting.dataSource()).table(table).clock(clock).open();
        counting.reset();

        assertThat(counted.acquire(new LeaseRequest(List.of(), "w1", TTL))).isEmpty();
        assertThat(counted.renew(List.of())).isEmpty();
        assertThat(counted.release(List.of())).isEmpty();

        assertThat(counting.connections()).isZero();
        assertThat(counting.executions()).isZero();
    }

    // ---- what the rows say --------------------------------------------------------------------------

    @Test
    void theRowCarriesTheGrantAndExpiryFromTheInjectedClock() throws SQLException {
        Lease lease = manager.acquire(new LeaseRequest(List.of("slot-7"), "w1", TTL)).get(0);

        LeaseRow row = readRow("slot-7");
        assertThat(row.owner()).isEqualTo("w1");
        assertThat(row.fence()).isEqualTo(lease.fence());
        assertThat(row.expiresAt()).isEqualTo(clock.instant().plus(TTL).atOffset(ZoneOffset.UTC));
        assertThat(lease.grantedAt()).isEqualTo(clock.instant());

        clock.advance(Duration.ofSeconds(7));
        manager.renew(List.of(lease));
        assertThat(readRow("slot-7").expiresAt()).isEqualTo(clock.instant().plus(TTL).atOffset(ZoneOffset.UTC));
    }

    @Test
    void aReleasedLeaseKeepsItsRowAndFenceAndIsGrantableWhateverTheNextCallersClock() throws SQLException {
        Lease lease = manager.acquire(new LeaseRequest(List.of("slot-1"), "w1", TTL)).get(0);
        assertThat(manager.release(List.of(lease))).hasSize(1);

        LeaseRow row = readRow("slot-1");
        assertThat(row.fence()).as("the fence stays, so the next grant is compared with it").isEqualTo(lease.fence());
        assertThat(row.expiresAt().toInstant()).isEqualTo(Instant.EPOCH);

        MutableClock lagging = new MutableClock(clock.instant().minus(Duration.ofHours(1)));
        JdbcLeaseManager other = JdbcLeaseManager.builder(dataSource()).table(table).clock(lagging).open();
        List<Lease> regranted = other.acquire(new LeaseRequest(List.of("slot-1"), "w2", TTL));
        assertThat(regranted).as("a worker whose clock is an hour behind").hasSize(1);
        assertThat(regranted.get(0).fence()).isGreaterThan(lease.fence());
        other.close();
    }

    /**
     * Two renewals of one lease in flight at once: the one computed earlier (an earlier "now", so an
     * earlier expiry) lands last. It must not shorten the lease the later one promised its holder.
     */
    @Test
    void aRenewalThatLandsLateNeverShortensTheLease() {
        Lease lease = manager.acquire(new LeaseRequest(List.of("slot-late"), "w1", TTL)).get(0);
        Instant start = clock.instant();
        clock.set(start.plusSeconds(10));
        assertThat(manager.renew(List.of(lease))).hasSize(1);              // expires at start + 10 s + ttl
        clock.set(start.plusSeconds(5));
        assertThat(manager.renew(List.of(lease))).hasSize(1);              // the stale one: start + 5 s + ttl

        clock.set(start.plusSeconds(10).plus(TTL).minusSeconds(1));
        try (JdbcLeaseManager other = JdbcLeaseManager.builder(dataSource()).table(table).clock(clock).open()) {
            assertThat(other.acquire(new LeaseRequest(List.of("slot-late"), "w2", TTL)))
                    .as("the key 1 s before the later renewal's expiry").isEmpty();
        }
    }

    @Test
    void renewalTellsTheListenersOfEveryLeaseItCouldNotRenewOnce() {
        List<Lease> held = manager.acquire(new LeaseRequest(keys("loss", 3), "w1", Duration.ofSeconds(2)));
        List<LeaseLoss> losses = new CopyOnWriteArrayList<>();
        manager.addLeaseLossListener(losses::add);
        Lease released = held.get(0);
        manager.release(List.of(released));

        List<Lease> renewed = manager.renew(held);

        assertThat(renewed).hasSize(2).noneMatch(l -> l.sameGrant(released));
        assertThat(losses).hasSize(1);
        assertThat(losses.get(0).leases()).containsExactly(released);
        assertThat(losses.get(0).cause()).isEqualTo(LeaseLoss.Cause.RENEWAL_REFUSED);
        assertThat(losses.get(0).detail()).startsWith(manager.describe());
    }

    // ---- the fence floor ----------------------------------------------------------------------------

    @Test
    void raiseFenceFloorMakesTheNextFenceExceedTheFloor() {
        Lease first = manager.acquire(new LeaseRequest(List.of("slot-a"), "w1", TTL)).get(0);
        long floor = first.fence() + 1_000;

        assertThat(manager.raiseFenceFloor(floor)).isTrue();

        Lease next = manager.acquire(new LeaseRequest(List.of("slot-b"), "w1", TTL)).get(0);
        assertThat(next.fence()).isGreaterThan(floor);
        manager.release(List.of(first));
        assertThat(manager.acquire(new LeaseRequest(List.of("slot-a"), "w2", TTL)).get(0).fence())
                .as("a released key re-granted after the raise").isGreaterThan(next.fence());
    }

    @Test
    void raiseFenceFloorNeverMovesTheSequenceBack() {
        Lease first = manager.acquire(new LeaseRequest(keys("back", 10), "w1", TTL)).get(9);
        long highest = manager.acquire(new LeaseRequest(List.of("slot-x"), "w1", TTL)).get(0).fence();

        assertThat(manager.raiseFenceFloor(0)).isTrue();
        assertThat(manager.raiseFenceFloor(first.fence())).isTrue();
        assertThat(manager.raiseFenceFloor(highest)).isTrue();

        assertThat(manager.acquire(new LeaseRequest(List.of("slot-y"), "w1", TTL)).get(0).fence()).isGreaterThan(highest);
    }

    @Test
    void raiseFenceFloorOnAFreshSequenceSkipsTheFloorItself() {
        assertThat(manager.raiseFenceFloor(1)).isTrue();

        assertThat(manager.acquire(new LeaseRequest(List.of("slot-1"), "w1", TTL)).get(0).fence()).isEqualTo(2);
    }

    @Test
    void aKeyReGrantedAfterTheSequenceWasResetByHandStillGetsAFenceAboveItsLast() throws SQLException {
        manager.acquire(new LeaseRequest(keys("filler", 20), "w1", TTL));
        Lease first = manager.acquire(new LeaseRequest(List.of("slot-r"), "w1", TTL)).get(0);
        assertThat(first.fence()).isGreaterThan(20);
        manager.release(List.of(first));
        execute(kind() != DatabaseKind.POSTGRESQL
                ? "ALTER SEQUENCE " + table + "_lease_fence_seq RESTART WITH 1"
                : "SELECT setval('" + table + "_lease_fence_seq', 1, false)");

        List<Lease> granted = manager.acquire(new LeaseRequest(List.of("slot-r", "slot-fresh"), "w2", TTL));

        assertThat(granted).extracting(Lease::key).containsExactly("slot-r", "slot-fresh");
        assertThat(granted.get(1).fence()).as("a fresh key: the sequence really went back").isLessThanOrEqualTo(2);
        assertThat(granted.get(0).fence()).as("the re-granted key").isGreaterThan(first.fence());
    }

    @Test
    void aNegativeFloorIsRefused() {
        assertThatThrownBy(() -> manager.raiseFenceFloor(-1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("-1");
    }

    /**
     * Grants run on three threads while a fourth keeps raising the floor to just above the highest
     * fence seen so far, which the sequence has often passed already (grants are in flight): a raise
     * that moved the sequence back would make later grants repeat fences (a plain {@code setval} does,
     * about a third of them here). No fence may repeat, and a grant that started after a raise
     * returned is above that floor. (The PostgreSQL test class also checks the advisory lock that
     * keeps a raise's read and {@code setval} from interleaving with grants; that window is too narrow
     * for this test to hit.)
     */
    @Test
    void raisingTheFloorDuringConcurrentGrantsNeverRepeatsAFence() throws Exception {
        int grantThreads = 3;
        int rounds = 60;
        AtomicLong highestSeen = new AtomicLong();
        AtomicLong raisedFloor = new AtomicLong();
        AtomicBoolean granting = new AtomicBoolean(true);
        List<Long> fences = Collections.synchronizedList(new ArrayList<>());
        List<String> violations = new CopyOnWriteArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(grantThreads + 1);
        try {
            List<Future<?>> grants = new ArrayList<>();
            for (int t = 0; t < grantThreads; t++) {
                String owner = "w" + t;
                grants.add(pool.submit(() -> {
                    for (int round = 0; round < rounds; round++) {
                        long floorBefore = raisedFloor.get();
                        List<Lease> granted = manager.acquire(new LeaseRequest(keys(owner + "-" + round, 20), owner, TTL));
                        for (Lease lease : granted) {
                            fences.add(lease.fence());
                            highestSeen.accumulateAndGet(lease.fence(), Math::max);
                            if (lease.fence() <= floorBefore) {
                                violations.add(lease + " granted after the floor was raised to " + floorBefore);
                            }
                        }
                    }
                    return null;
                }));
            }
            Future<Integer> raiser = pool.submit(() -> {
                int raises = 0;
                while (granting.get()) {
                    long floor = highestSeen.get() + 15;
                    manager.raiseFenceFloor(floor);
                    raisedFloor.accumulateAndGet(floor, Math::max);
                    raises++;
                }
                return raises;
            });
            for (Future<?> grant : grants) {
                grant.get(2, TimeUnit.MINUTES);
            }
            granting.set(false);
            assertThat(raiser.get(1, TimeUnit.MINUTES)).as("raises made while granting").isGreaterThan(10);
        } finally {
            granting.set(false);
            pool.shutdownNow();
        }

        assertThat(fences).hasSize(grantThreads * rounds * 20);
        Set<Long> distinct = new HashSet<>();
        List<Long> repeated = fences.stream().filter(f -> !distinct.add(f)).limit(20).toList();
        assertThat(repeated).as("fences handed out twice (first 20)").isEmpty();
        assertThat(violations).isEmpty();
    }

    // ---- start-up checks and errors ---------------------------------------------------------------

    @Test
    void aMissingLeaseTableIsRefusedAtOpenNamingTheV3Script() {
        TableName withoutV3 = newTable(2);

        assertThatThrownBy(() -> JdbcLeaseManager.builder(dataSource()).table(withoutV3).clock(clock).open())
                .isInstanceOf(LeaseManagerException.class)
                .hasMessageStartingWith("Lease table " + withoutV3 + "_leases does not exist at "
                        + JdbcUrls.describe(dataSource()))
                .hasMessageContaining("apply db/leasebox/" + kind().folder() + "/V3__add_lease_slots.sql")
                .hasMessageContaining("leasebox schema --apply");
    }

    @Test
    void aMissingSchemaIsReportedAsAMissingLeaseTable() {
        TableName nowhere = new TableName("no_such_schema", "outbox");

        assertThatThrownBy(() -> JdbcLeaseManager.builder(dataSource()).table(nowhere).clock(clock).open())
                .isInstanceOf(LeaseManagerException.class)
                .hasMessageStartingWith("Lease table no_such_schema.outbox_leases does not exist at ")
                .hasMessageContaining("V3__add_lease_slots.sql");
    }

    @Test
    void aMissingFenceSequenceIsRefusedAtOpen() throws SQLException {
        TableName half = newTable(3);
        execute("DROP SEQUENCE " + half + "_lease_fence_seq");

        assertThatThrownBy(() -> JdbcLeaseManager.builder(dataSource()).table(half).clock(clock).open())
                .isInstanceOf(LeaseManagerException.class)
                .hasMessageStartingWith("Fence sequence " + half + "_lease_fence_seq does not exist at ")
                .hasMessageContaining("V3__add_lease_slots.sql");
    }

    @Test
    void describeNamesTheLeaseTableAndTheAddress() {
        assertThat(manager.describe())
                .isEqualTo("database leases in " + table + "_leases at " + JdbcUrls.describe(dataSource()));
    }

    @Test
    void aClosedManagerRefusesCallsAndLeavesItsLeasesToExpire() {
        manager.acquire(new LeaseRequest(List.of("slot-c"), "w1", TTL));
        manager.close();

        assertThatThrownBy(() -> manager.acquire(new LeaseRequest(List.of("slot-d"), "w1", TTL)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("is closed");
        JdbcLeaseManager other = JdbcLeaseManager.builder(dataSource()).table(table).clock(clock).open();
        assertThat(other.acquire(new LeaseRequest(List.of("slot-c"), "w2", TTL))).as("still held").isEmpty();
        clock.advance(TTL);
        assertThat(other.acquire(new LeaseRequest(List.of("slot-c"), "w2", TTL))).as("expired").hasSize(1);
        other.close();
    }

    /**
     * The statements one batch of {@code elements} may run: one on PostgreSQL and H2 (arrays); on MariaDB,
     * which has none, one transaction of a few statements per element on one connection.
     */
    protected int batchStatements(int elements) {
        return kind() == DatabaseKind.MARIADB ? 3 * elements + 1 : 1;
    }

    protected record LeaseRow(String owner, long fence, OffsetDateTime expiresAt) {
    }

    protected LeaseRow readRow(String key) throws SQLException {
        try (Connection c = dataSource().getConnection();
             PreparedStatement ps = c.prepareStatement(
                     "SELECT owner, fence, expires_at FROM " + table + "_leases WHERE lease_key = ?")) {
            ps.setString(1, key);
            try (ResultSet rs = ps.executeQuery()) {
                assertThat(rs.next()).as("a row for %s", key).isTrue();
                OffsetDateTime expiresAt = kind() == DatabaseKind.MARIADB
                        ? rs.getObject(3, java.time.LocalDateTime.class).atOffset(ZoneOffset.UTC) // DATETIME in UTC
                        : rs.getObject(3, OffsetDateTime.class).withOffsetSameInstant(ZoneOffset.UTC);
                return new LeaseRow(rs.getString(1), rs.getLong(2), expiresAt);
            }
        }
    }

    protected void execute(String sql) throws SQLException {
        try (Connection c = dataSource().getConnection(); Statement st = c.createStatement()) {
            st.execute(sql);
        }
    }
}
