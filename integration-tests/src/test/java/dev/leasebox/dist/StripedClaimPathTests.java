package dev.leasebox.dist;

import dev.leasebox.claim.leased.RowBlockLeases;
import dev.leasebox.lease.PeerRanking;
import com.zaxxer.hikari.HikariDataSource;
import dev.leasebox.claim.LeaseGrouping;
import dev.leasebox.claim.leased.LeasedOutboxClaimStore;
import dev.leasebox.cli.embedded.EmbeddedCoordinator;
import dev.leasebox.jdbc.DatabaseKind;
import dev.leasebox.jdbc.LeaseboxSchema;
import dev.leasebox.jdbc.PostgreSqlTestServer;
import dev.leasebox.jdbc.TableName;
import dev.leasebox.jdbc.store.JdbcOutboxStore;
import dev.leasebox.lease.LeaseManager;
import dev.leasebox.lease.MonotonicClock;
import dev.leasebox.lease.PeerRank;
import dev.leasebox.lease.spi.LeaseBackendSettings;
import dev.leasebox.outbox.CandidateStripe;
import dev.leasebox.outbox.ClaimRequest;
import dev.leasebox.outbox.ClaimSelection;
import dev.leasebox.outbox.EmissionResult;
import dev.leasebox.outbox.OutboxClaim;
import dev.leasebox.outbox.OutboxMessage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Candidate stripes end to end, for a backend whose managers report a peer rank, against its real
 * coordinator and PostgreSQL: three workers (each its own pool and coordinator client, as on three
 * nodes) find their ranks, claim only rows of their own stripe while it lasts, re-stripe when one of
 * them leaves, and drain the stripe of a worker that stays a member but stops claiming. Subclasses
 * start the coordinator once per class; each test has a namespace of its own.
 */
abstract class StripedClaimPathTests {

    private final List<AutoCloseable> resources = new ArrayList<>();
    protected HikariDataSource admin;
    private String schema;
    private TableName table;
    private String namespace;

    /** One worker: its manager and the claim store layered on it. */
    protected record Worker(LeaseManager manager, LeasedOutboxClaimStore store) {

        PeerRank rank() {
            return manager.as(PeerRanking.class).flatMap(PeerRanking::peerRank).orElseThrow();
        }
    }

    /** The backend's name, as {@code LeaseBackends.named} takes it. */
    protected abstract String backend();

    /** The running coordinator the workers connect to. */
    protected abstract EmbeddedCoordinator coordinator();

    /** The lease ttl the workers request. */
    protected abstract Duration lease();

    @BeforeEach
    void database() {
        admin = PostgreSqlTestServer.dataSource(2);
        schema = PostgreSqlTestServer.newSchema(admin);
        table = new TableName(schema, "outbox");
        new LeaseboxSchema(DatabaseKind.POSTGRESQL, table).applyAll(admin);
        namespace = "stripes-" + UUID.randomUUID().toString().substring(0, 8);
    }

    @AfterEach
    void closeWorkers() throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
        PostgreSqlTestServer.dropSchema(admin, schema);
        admin.close();
    }

    protected Worker worker() {
        return worker(false);
    }

    protected Worker worker(boolean releaseInBackground) {
        return worker(releaseInBackground, java.util.Map.of());
    }

    /** A worker whose backend also gets {@code options} (e.g. {@code row-groups=0}: a lease per row). */
    protected Worker worker(boolean releaseInBackground, java.util.Map<String, String> options) {
        HikariDataSource pool = PostgreSqlTestServer.dataSource(2);
        resources.add(pool);
        java.util.Map<String, String> backendOptions = new java.util.HashMap<>(coordinator().clientOptions());
        backendOptions.putAll(options);
        // as the CLI opens it: rows grouped where LeaseGrouping says (hazelcast by default)
        LeaseManager manager = LeaseGrouping.open(backend(),
                new LeaseBackendSettings(coordinator().address(), namespace, lease(), backendOptions), MonotonicClock.system());
        resources.add(manager);
        JdbcOutboxStore rows = JdbcOutboxStore.builder(pool).table(table).candidateSpread(4).open();
        LeasedOutboxClaimStore store = LeasedOutboxClaimStore.builder(rows, manager, Clock.systemUTC())
                .releaseInBackground(releaseInBackground).open();
        resources.add(store);
        return new Worker(manager, store);
    }

    protected JdbcOutboxStore rows() {
        return JdbcOutboxStore.builder(admin).table(table).open();
    }

    protected void enqueue(int count) {
        JdbcOutboxStore store = rows();
        for (int i = 0; i < count; i++) {
            store.enqueue(OutboxMessage.of("stripes", new byte[0]).withIdempotencyKey("e-" + i));
        }
    }

    protected static void awaitPeers(List<Worker> workers, int peers) {
        await().atMost(Duration.ofSeconds(15)).until(() -> workers.stream()
                .allMatch(w -> w.manager().as(PeerRanking.class).flatMap(PeerRanking::peerRank).map(PeerRank::peers).orElse(0) == peers));
    }

    /** The worker's stripe: its rank's share of the rows, in blocks of its manager's row block. */
    private static CandidateStripe stripeOf(Worker worker) {
        return CandidateStripe.of(worker.rank(), RowBlockLeases.of(worker.manager()));
    }

    private List<Long> claim(Worker worker, String owner, int batch) {
        return worker.store().claim(ClaimSelection.ELIGIBLE, new ClaimRequest(owner, batch, lease())).stream()
                .map(OutboxClaim::entryId).toList();
    }

    /**
     * Which worker leaves decides which blocks the two that stay find in their new stripes, and held by
     * whom: with blocks of rows (grouped leases), when the worker of rank 0 leaves, the new rank 1's
     * oldest rows are in the block the new rank 0 still holds for its first claim. Every rank is tried.
     */
    @ParameterizedTest(name = "the worker of rank {0} leaves")
    @ValueSource(ints = {0, 1, 2})
    void workersClaimDisjointStripesByTheirRankAndReStripeWhenOneLeaves(int leavingRank) {
        enqueue(600);
        List<Worker> workers = new ArrayList<>(List.of(worker(), worker(), worker()));
        awaitPeers(workers, 3);
        assertThat(workers.stream().map(w -> w.rank().rank())).containsExactlyInAnyOrder(0, 1, 2);

        Set<Long> claimed = new HashSet<>();
        for (int i = 0; i < workers.size(); i++) {
            PeerRank rank = workers.get(i).rank();
            List<Long> ids = claim(workers.get(i), "w" + i, 50);
            assertThat(ids).as("worker of rank %s", rank).hasSize(50)
                    .allMatch(stripeOf(workers.get(i))::contains);
            assertThat(claimed.addAll(ids)).isTrue();
        }
        assertThat(claimed).hasSize(150);

        Worker leaving = workers.stream().filter(w -> w.rank().rank() == leavingRank).findFirst().orElseThrow();
        workers.remove(leaving);
        leaving.manager().close();
        awaitPeers(workers, 2);
        for (int i = 0; i < workers.size(); i++) {
            PeerRank rank = workers.get(i).rank();
            List<Long> ids = claim(workers.get(i), "w" + i, 50);
            assertThat(ids).as("worker of rank %s after one left", rank).hasSize(50)
                    .allMatch(stripeOf(workers.get(i))::contains)
                    .doesNotContainAnyElementsOf(claimed);
            claimed.addAll(ids);
        }
    }

    @Test
    void theStripeOfAMemberThatStopsClaimingIsDrainedByTheOthers() {
        enqueue(300);
        List<Worker> workers = List.of(worker(), worker(), worker());
        awaitPeers(workers, 3);
        Worker idle = workers.stream().filter(w -> w.rank().rank() == 0).findFirst().orElseThrow();
        List<Worker> busy = workers.stream().filter(w -> w != idle).toList();

        int delivered = 0;
        for (int round = 0; round < 100 && delivered < 300; round++) {
            for (Worker worker : busy) {
                for (OutboxClaim claim : worker.store().claim(ClaimSelection.ELIGIBLE,
                        new ClaimRequest("busy-" + worker.rank().rank(), 20, lease()))) {
                    assertThat(worker.store().markClaimDelivered(claim, EmissionResult.at(Instant.now())).isCompleted()).isTrue();
                    delivered++;
                }
            }
        }

        assertThat(delivered).as("every row, the idle member's stripe included").isEqualTo(300);
        assertThat(rows().findPending(1_000)).isEmpty();
        assertThat(idle.rank().peers()).as("the idle worker is still a member").isEqualTo(3);
    }
}
