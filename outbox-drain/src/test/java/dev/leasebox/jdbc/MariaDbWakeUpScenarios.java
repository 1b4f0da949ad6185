package dev.leasebox.jdbc;

import dev.leasebox.Leasebox;
import dev.leasebox.drain.DrainListener;
import dev.leasebox.drain.DrainOptions;
import dev.leasebox.lease.LeaseManager;
import dev.leasebox.lease.WakeUpChannel;
import dev.leasebox.lease.contract.WakeUpChannelContract.Heard;
import dev.leasebox.outbox.OutboxMessage;
import dev.leasebox.provider.ProviderOutcome;
import dev.leasebox.testing.LeaseboxToolBuilder;
import dev.leasebox.wakeup.WakeUp;
import dev.leasebox.wakeup.WakeUpPublisher;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A drain on MariaDB, which has no commit notification, woken through a coordinator's wake-up channel by
 * another process: another lease manager on the same namespace plays that process. Each backend's IT extends
 * this and supplies its coordinator and lease managers. The drain's idle poll is 30 s, so only a hint explains
 * a delivery within {@link #BOUND}. The writer's side (that {@link OutboxWriter} publishes, after its commit
 * or with a pending one) and the drain's side (that a published hint wakes it, the row inserted by plain SQL
 * so that no writer of this JVM wakes it directly) are shown apart.
 *
 * @param <M> the backend's lease manager, which is its wake-up channel too
 */
public abstract class MariaDbWakeUpScenarios<M extends LeaseManager & WakeUpChannel> {

    private static final Duration POLL = Duration.ofSeconds(30);
    private static final Duration BOUND = Duration.ofSeconds(15);

    @RegisterExtension
    static final MariaDbDatabase DB = new MariaDbDatabase(6);

    private final String namespace = "leasebox-it-wake-" + UUID.randomUUID().toString().substring(0, 8);
    private final TableName table = new TableName(DB.name(), "wake_" + UUID.randomUUID().toString()
            .replace("-", "").substring(0, 12));
    private final Set<Long> delivered = ConcurrentHashMap.newKeySet();
    private final AtomicInteger idlePolls = new AtomicInteger();
    private final List<RuntimeException> failedCycles = new CopyOnWriteArrayList<>();
    private M drainsManager;
    private M writersManager;
    private Leasebox drain;

    /**
     * A started lease manager on the coordinator, in {@code namespace}, closed by the caller. {@code process}
     * is 0 for the drain's, 1 for the writers' and 2 for a listener's: a backend whose managers join members
     * puts each process on a member of its own.
     */
    protected abstract M manager(String namespace, int process);

    /** The drain's options before the scenario sets its owner and idle polling: by default, the defaults. */
    protected DrainOptions.Builder drainOptions() {
        return DrainOptions.builder();
    }

    @BeforeEach
    void openOutbox() {
        new LeaseboxSchema(DatabaseKind.MARIADB, table).applyAll(DB.ds());
        drainsManager = manager(namespace, 0);
        writersManager = manager(namespace, 1);
    }

    @AfterEach
    void closeOutbox() throws Exception {
        if (drain != null) {
            drain.close();
        }
        drainsManager.close();
        writersManager.close();
    }

    @Test
    void aHintFromAnotherProcessWakesAnIdleDrainOnMariaDb() {
        startDrain();

        PostgreSqlTestServer.execute(DB.ds(), "INSERT INTO " + table + " (idempotency_key, type, payload, created_at) "
                + "VALUES ('plain-1', 'order-placed', x'7b7d', UTC_TIMESTAMP(6))");
        new WakeUpPublisher(writersManager, table.qualified()).publish(WakeUp.COMMITTED);

        await("the idle drain emits the row the hint announced").atMost(BOUND).until(() -> delivered.size() == 1);
    }

    @Test
    void aWriterPublishesACommittedHintAfterItsCommitAndAPendingOneInsideATransaction() throws Exception {
        Heard heard = new Heard();
        M listener = manager(namespace, 2);
        try (listener; WakeUpChannel.Subscription ignored = listener.subscribe(WakeUpPublisher.topic(table.qualified()), heard)) {
            await().atMost(BOUND).until(() -> heard.subscribed.get() > 0);
            OutboxWriter writer = OutboxWriter.of(table, Clock.systemUTC()).wakeUpsThrough(writersManager);

            writer.enqueue(DB.ds(), message("owned"));
            await("a committed hint after enqueue(DataSource, …)").atMost(BOUND).until(() -> heard.hints.contains("committed"));

            try (Connection c = DB.ds().getConnection()) {
                c.setAutoCommit(false);
                writer.enqueue(c, message("in-transaction"));
                c.commit();
            }
            await("a commit_pending hint after enqueue(Connection, …) in a transaction").atMost(BOUND)
                    .until(() -> heard.hints.contains("commit_pending"));
        }
    }

    @Test
    void theDrainOfAWriterPublishingThroughTheCoordinatorSaysSo() {
        startDrain();
        assertThat(drain.describe()).contains("woken by writers in this process, the coordinator's channel");
    }

    private void startDrain() {
        drain = LeaseboxToolBuilder.drain(DB.ds()).withoutClaimStyleRegistry().table(table).leases(drainsManager)
                .options(drainOptions().owner("mariadb-woken").idlePolling(POLL, POLL).build())
                .listener(new DrainListener() {
                    @Override
                    public void idlePoll() {
                        idlePolls.incrementAndGet();
                    }

                    @Override
                    public void cycleFailed(RuntimeException error) {
                        failedCycles.add(error);
                    }
                })
                .provider(envelope -> {
                    delivered.add(envelope.entryId());
                    return ProviderOutcome.delivered();
                }).build();
        drain.start();
        await().atMost(BOUND).until(() -> idlePolls.get() >= 2); // the first look, and the one on subscribing
        assertThat(failedCycles).as("the drain's idle cycles").isEmpty();
    }

    private static OutboxMessage message(String text) {
        return OutboxMessage.of("order-placed", text.getBytes(StandardCharsets.UTF_8));
    }
}
