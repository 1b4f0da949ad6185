package dev.leasebox.dist;

import dev.leasebox.claim.ClaimMode;
import dev.leasebox.claim.partition.PartitionedOutboxClaimStore;
import dev.leasebox.cli.embedded.EmbeddedCoordinator;
import dev.leasebox.cli.embedded.EmbeddedCoordinators;
import dev.leasebox.jdbc.DatabaseKind;
import dev.leasebox.jdbc.LeaseboxSchema;
import dev.leasebox.jdbc.PostgreSqlSchema;
import dev.leasebox.jdbc.TableName;
import dev.leasebox.jdbc.lease.JdbcSlotStore;
import dev.leasebox.jdbc.lease.JdbcWorkerGroup;
import dev.leasebox.jdbc.store.JdbcOutboxStore;
import dev.leasebox.lease.LeaseManager;
import dev.leasebox.lease.spi.LeaseBackendSettings;
import dev.leasebox.lease.spi.LeaseBackends;
import dev.leasebox.outbox.ClaimRequest;
import dev.leasebox.outbox.ClaimSelection;
import dev.leasebox.outbox.Completion;
import dev.leasebox.outbox.EmissionError;
import dev.leasebox.outbox.OutboxClaim;
import dev.leasebox.outbox.OutboxMessage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Lean partition claims across a blip of a real ZooKeeper connection: the server stops and comes back on the
 * same port and data within the session timeout, so the session, and the slot lease with it, survive. While
 * the row's emission is in flight it is never handed out again, and once that emission is over, the row is
 * handed out again only under a higher token.
 */
class ZooKeeperLeanBlipIT {

    private static final Duration TTL = Duration.ofSeconds(30);

    @RegisterExtension
    static final PostgreSqlSchema DB = new PostgreSqlSchema(4);

    @Test
    void aRowInFlightAcrossAConnectionBlipIsNotHandedOutAgainAndLaterOnlyUnderAHigherToken() throws Exception {
        TableName table = new TableName(DB.name(), "zk_blip_" + System.nanoTime());
        new LeaseboxSchema(DatabaseKind.POSTGRESQL, table, 1).applyAll(DB.ds());
        JdbcOutboxStore rows = JdbcOutboxStore.builder(DB.ds()).table(table).open();
        JdbcSlotStore slots = JdbcSlotStore.open(DB.ds(), rows, rows.localClock());
        Path data = Files.createTempDirectory("leasebox-zookeeper-blip-");
        Map<String, String> server = Map.of("port", Integer.toString(freePort()), "data-dir", data.toString());
        EmbeddedCoordinator zooKeeper = EmbeddedCoordinators.start("zookeeper", server);
        LeaseManager manager = LeaseBackends.named("zookeeper").open(new LeaseBackendSettings(zooKeeper.address(),
                "lean-blip-it", TTL, zooKeeper.clientOptions()));
        PartitionedOutboxClaimStore store = PartitionedOutboxClaimStore.open(rows, slots, manager,
                new JdbcWorkerGroup(DB.ds(), rows, rows.localClock()), "w", TTL, Duration.ofSeconds(10), false,
                ClaimMode.LEAN, rows.localClock());
        try {
            rows.enqueue(OutboxMessage.of("t", new byte[] {1}).withIdempotencyKey("blip-" + table.table()));
            OutboxClaim emitting = store.claim(ClaimSelection.ELIGIBLE, request()).get(0);
            long fence = store.keeper().validGrant(0).orElseThrow().fence();

            zooKeeper.close(); // the connection drops; the session and the slot lease live on
            await("the keeper to see the connection suspended").atMost(Duration.ofSeconds(20))
                    .until(() -> store.keeper().validGrants().isEmpty());
            store.renewClaims(List.of(emitting), TTL); // the drain's renewal runs during the blip
            zooKeeper = EmbeddedCoordinators.start("zookeeper", server);
            await("the connection restored on the same session, the slot held under the same grant")
                    .atMost(Duration.ofSeconds(20))
                    .until(() -> store.keeper().validGrants().stream().anyMatch(g -> g.fence() == fence));

            assertThat(store.claim(ClaimSelection.ELIGIBLE, request()))
                    .as("the row's emission under %s is in flight: it is not handed out again", fence).isEmpty();

            // the emission ends with a retryable failure; the row is handed out again only under a higher token
            assertThat(store.complete(emitting, new Completion.Failed(EmissionError.retryable("503", "unavailable"),
                    Optional.of(rows.localClock().instant()))).isCompleted()).isTrue();
            assertThat(store.claim(ClaimSelection.ELIGIBLE, request()))
                    .as("never again under the fence %s its first emission carried", fence)
                    .allSatisfy(c -> assertThat(c.token()).isGreaterThan(fence));
            store.keeper().tick();
            List<OutboxClaim> again = store.claim(ClaimSelection.ELIGIBLE, request());
            assertThat(again).extracting(OutboxClaim::entryId).containsExactly(emitting.entryId());
            assertThat(again.get(0).token()).isGreaterThan(fence);
        } finally {
            store.close();
            manager.close();
            zooKeeper.close();
        }
    }

    private static ClaimRequest request() {
        return new ClaimRequest("w", 10, TTL);
    }

    private static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
