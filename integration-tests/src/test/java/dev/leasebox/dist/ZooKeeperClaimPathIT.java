package dev.leasebox.dist;

import dev.leasebox.claim.LeaseGrouping;
import dev.leasebox.claim.leased.LeasedOutboxClaimStore;
import dev.leasebox.cli.embedded.EmbeddedCoordinator;
import dev.leasebox.cli.embedded.EmbeddedCoordinators;
import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseRequest;
import dev.leasebox.outbox.ClaimCompletion;
import dev.leasebox.outbox.ClaimRequest;
import dev.leasebox.outbox.ClaimSelection;
import dev.leasebox.outbox.Completion;
import dev.leasebox.outbox.EmissionResult;
import dev.leasebox.outbox.OutboxClaim;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The leased claim path's ZooKeeper-driven parts end to end, against a real ZooKeeper server and
 * PostgreSQL: candidate stripes from the members group ({@link StripedClaimPathTests}), and the
 * background release: completing returns before the lease nodes are deleted, and closing the store
 * waits until they are.
 */
class ZooKeeperClaimPathIT extends StripedClaimPathTests {

    private static final Duration LEASE = Duration.ofSeconds(30);
    private static EmbeddedCoordinator zooKeeper;

    @BeforeAll
    static void startZooKeeper() {
        zooKeeper = EmbeddedCoordinators.start("zookeeper", Map.of());
    }

    @AfterAll
    static void stopZooKeeper() {
        zooKeeper.close();
    }

    @Override
    protected String backend() {
        return "zookeeper";
    }

    @Override
    protected EmbeddedCoordinator coordinator() {
        return zooKeeper;
    }

    @Override
    protected Duration lease() {
        return LEASE;
    }

    private static final Map<String, String> PER_ROW = Map.of(LeaseGrouping.GROUPS_OPTION, "0");

    @Test
    void aBackgroundReleaseDeletesTheLeaseNodesAfterCompleteAllAndCloseWaitsForIt() {
        enqueue(200);
        // a lease per row, whatever the default: with rows grouped an idle group lingers, held, after its rows are released
        Worker releasing = worker(true, PER_ROW);
        Worker other = worker(false, PER_ROW);
        awaitPeers(List.of(releasing, other), 2);
        List<OutboxClaim> claims = releasing.store().claim(ClaimSelection.ELIGIBLE, new ClaimRequest("bg", 50, LEASE));
        assertThat(claims).hasSize(50);
        List<String> keys = claims.stream().map(c -> LeasedOutboxClaimStore.leaseKey(c.entryId())).toList();

        releasing.store().completeAll(claims.stream()
                .map(c -> new ClaimCompletion(c, new Completion.Delivered(EmissionResult.at(Instant.now())))).toList());
        releasing.store().close();

        List<Lease> taken = other.manager().acquire(new LeaseRequest(keys, "other", LEASE));
        assertThat(taken).as("every node was deleted by the time close returned").hasSize(50);
        other.manager().release(taken);
        assertThat(claims).allSatisfy(c -> assertThat(rows().find(c.entryId()).orElseThrow().status().name()).isEqualTo("DELIVERED"));
    }
}
