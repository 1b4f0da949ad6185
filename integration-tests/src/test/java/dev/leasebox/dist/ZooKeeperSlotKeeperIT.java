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
import dev.leasebox.outbox.OutboxMessage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The slot keeper against a real ZooKeeper server: while the manager reports its connection suspended (the
 * server is gone), the keeper offers no grant and a lean partition claim reads nothing, though the slot
 * leases have not expired locally: the coordinator that excludes the others cannot be asked.
 */
class ZooKeeperSlotKeeperIT {

    private static final Duration TTL = Duration.ofSeconds(30);

    @RegisterExtension
    static final PostgreSqlSchema DB = new PostgreSqlSchema(4);

    @Test
    void aSuspendedCoordinatorConnectionOffersNoGrantAndClaimsNothing() {
        TableName table = new TableName(DB.name(), "zk_keeper_" + System.nanoTime());
        new LeaseboxSchema(DatabaseKind.POSTGRESQL, table, 4).applyAll(DB.ds());
        JdbcOutboxStore rows = JdbcOutboxStore.builder(DB.ds()).table(table).open();
        JdbcSlotStore slots = JdbcSlotStore.open(DB.ds(), rows, rows.localClock());
        EmbeddedCoordinator zooKeeper = EmbeddedCoordinators.start("zookeeper", Map.of());
        LeaseManager manager = LeaseBackends.named("zookeeper").open(new LeaseBackendSettings(zooKeeper.address(),
                "slot-keeper-it", TTL, zooKeeper.clientOptions()));
        PartitionedOutboxClaimStore store = PartitionedOutboxClaimStore.open(rows, slots, manager,
                new JdbcWorkerGroup(DB.ds(), rows, rows.localClock()), "w", TTL, Duration.ofSeconds(10), false,
                ClaimMode.LEAN, rows.localClock());
        try {
            for (int i = 0; i < 8; i++) {
                rows.enqueue(OutboxMessage.of("t", new byte[] {1}).withIdempotencyKey("k" + i + "-" + table.table()));
            }
            assertThat(store.keeper().validGrants()).hasSize(4);

            zooKeeper.close();

            await("the keeper to see the connection suspended").atMost(Duration.ofSeconds(20))
                    .until(() -> store.keeper().validGrants().isEmpty());
            assertThat(store.claim(ClaimSelection.ELIGIBLE, new ClaimRequest("w", 10, TTL)))
                    .as("nothing is read while the coordinator cannot be asked").isEmpty();
            assertThat(store.keeper().heldSlots()).as("the leases themselves have not expired").hasSize(4);
        } finally {
            store.close();
            manager.close();
        }
    }
}
