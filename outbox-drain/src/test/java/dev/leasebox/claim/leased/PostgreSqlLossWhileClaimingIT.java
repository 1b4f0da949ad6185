package dev.leasebox.claim.leased;

import dev.leasebox.claim.ClaimMode;
import dev.leasebox.drain.DrainOptions;
import dev.leasebox.drain.OutboxDrain;
import dev.leasebox.jdbc.DatabaseKind;
import dev.leasebox.jdbc.LeaseboxSchema;
import dev.leasebox.jdbc.PostgreSqlSchema;
import dev.leasebox.jdbc.TableName;
import dev.leasebox.jdbc.lease.JdbcLeaseManager;
import dev.leasebox.jdbc.store.JdbcOutboxStore;
import dev.leasebox.lease.Lease;
import dev.leasebox.outbox.EmissionStatus;
import dev.leasebox.outbox.OutboxEntry;
import dev.leasebox.outbox.OutboxMessage;
import dev.leasebox.provider.Envelope;
import dev.leasebox.provider.ProviderOutcome;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A lease loss reported while the claim call that made the grant is still running, on the real PostgreSQL
 * store with leases in the database's own lease table: reported from inside the acquire, during the
 * recorded claim's write, or during the lean claim's read of the granted rows. The worker must neither
 * emit nor complete the row; after a session-expiry-like loss another worker takes the row and is its only
 * emitter.
 */
class PostgreSqlLossWhileClaimingIT {

    @RegisterExtension
    static final PostgreSqlSchema DB = new PostgreSqlSchema(6);
    private static final AtomicInteger TABLES = new AtomicInteger();
    private static final Duration LEASE = Duration.ofSeconds(30);

    private final Clock clock = Clock.systemUTC();
    private final Queue<String> emissions = new ConcurrentLinkedQueue<>();
    private final List<AutoCloseable> closing = new ArrayList<>();
    private JdbcOutboxStore rows;
    private InterferingFencedStore interfering;
    private LossInjectingLeaseManager leases;
    private JdbcLeaseManager coordinator;

    @BeforeEach
    void freshTable() {
        TableName table = new TableName(DB.name(), "loss_claiming_" + TABLES.incrementAndGet());
        new LeaseboxSchema(DatabaseKind.POSTGRESQL, table).applyAll(DB.ds());
        rows = JdbcOutboxStore.builder(DB.ds()).table(table).clock(clock).open();
        interfering = new InterferingFencedStore(rows);
        coordinator = JdbcLeaseManager.builder(DB.ds()).table(table).open();
        leases = new LossInjectingLeaseManager(coordinator);
    }

    @AfterEach
    void close() throws Exception {
        for (int i = closing.size() - 1; i >= 0; i--) {
            closing.get(i).close();
        }
        coordinator.close();
    }

    @Test
    void aRecordedClaimWhoseLeaseIsReportedLostInsideTheAcquireIsNeitherEmittedNorCompleted() {
        OutboxEntry entry = enqueue();
        leases.onGrant(granted -> granted.forEach(lease -> leases.reportLost(lease, false)));

        worker("worker-a", ClaimMode.RECORDED, leases, interfering).runOnce();

        assertThat(emissions).as("emissions after the loss was reported inside the acquire").isEmpty();
        assertThat(row(entry).status()).as("the row's status").isEqualTo(EmissionStatus.PENDING);
    }

    @Test
    void aRecordedClaimWhoseLeaseIsReportedLostWhileItsClaimIsWrittenIsNeitherEmittedNorCompleted() {
        OutboxEntry entry = enqueue();
        interfering.beforeNextRecording(() -> reportFirstGrantLost(false));

        worker("worker-a", ClaimMode.RECORDED, leases, interfering).runOnce();

        assertThat(emissions).as("emissions after the loss was reported during recordClaims").isEmpty();
        assertThat(row(entry).status()).as("the row's status").isEqualTo(EmissionStatus.PENDING);
    }

    @Test
    void aLeanClaimWhoseSessionExpiresWhileItsRowIsReadLeavesTheRowToTheNextHolderAlone() {
        OutboxEntry entry = enqueue();
        interfering.beforeNextEligibilityCheck(() -> reportFirstGrantLost(true));

        worker("worker-a", ClaimMode.LEAN, leases, interfering).runOnce();
        assertThat(emissions).as("worker-a's emissions after its session expired during the row read").isEmpty();
        worker("worker-b", ClaimMode.LEAN, coordinator, rows).runOnce();

        assertThat(emissions).as("one holder at a time: only worker-b emitted").singleElement().asString()
                .startsWith("worker-b@");
        assertThat(row(entry).status()).isEqualTo(EmissionStatus.DELIVERED);
    }

    private void reportFirstGrantLost(boolean coordinatorForgets) {
        Lease lease = leases.granted().get(0);
        leases.reportLost(lease, coordinatorForgets);
    }

    private OutboxDrain worker(String owner, ClaimMode mode, dev.leasebox.lease.LeaseManager through,
                               dev.leasebox.outbox.FencedOutboxStore over) {
        LeasedOutboxClaimStore claims = LeasedOutboxClaimStore.builder(over, through, clock).claimMode(mode).open();
        OutboxDrain drain = OutboxDrain.builder().store(claims).clock(clock)
                .options(DrainOptions.builder().owner(owner).batchSize(10).leaseDuration(LEASE)
                        .renewalInterval(Duration.ofSeconds(10)).build())
                .provider(envelope -> record(owner, envelope)).build();
        closing.add(claims);
        closing.add(drain);
        return drain;
    }

    private ProviderOutcome record(String owner, Envelope envelope) {
        emissions.add(owner + "@" + envelope.fence().getAsLong());
        return ProviderOutcome.delivered();
    }

    private OutboxEntry enqueue() {
        return rows.enqueue(OutboxMessage.of("order.placed", "order-1".getBytes(StandardCharsets.UTF_8)));
    }

    private OutboxEntry row(OutboxEntry entry) {
        return rows.find(entry.id()).orElseThrow();
    }
}
