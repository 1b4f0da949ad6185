package dev.leasebox.jdbc;

import dev.leasebox.claim.ClaimMode;
import dev.leasebox.claim.partition.PartitionedOutboxClaimStore;
import dev.leasebox.drain.DrainOptions;
import dev.leasebox.drain.OutboxDrain;
import dev.leasebox.jdbc.lease.JdbcSlotStore;
import dev.leasebox.jdbc.lease.JdbcWorkerGroup;
import dev.leasebox.jdbc.store.JdbcOutboxStore;
import dev.leasebox.lease.inmemory.InMemoryLeaseManager;
import dev.leasebox.outbox.EmissionStatus;
import dev.leasebox.outbox.OutboxEntry;
import dev.leasebox.outbox.OutboxMessage;
import dev.leasebox.provider.ProviderOutcome;
import dev.leasebox.testkit.MutableClock;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import javax.sql.DataSource;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The drain with ordered partition leases, run against each database by a subclass: a head that keeps
 * failing holds back only its own key, and the attempts-exhausted policy decides whether its key moves
 * on (dead-letter) or waits for it (keep-retrying). Both claim modes.
 */
abstract class OrderedDrainScenarios {

    /** The data source of the class's database. */
    protected abstract DataSource dataSource();

    /** The class's own schema (PostgreSQL) or database (MariaDB). */
    protected abstract String schema();

    protected abstract DatabaseKind kind();

    private static final int MAX_ATTEMPTS = 3;

    private final MutableClock clock = MutableClock.startingAt2026();

    private Map<String, OutboxEntry> enqueueTwoKeys(JdbcOutboxStore rows) {
        Map<String, OutboxEntry> byName = new HashMap<>();
        for (int i = 0; i < 3; i++) {
            for (String key : List.of("A", "B")) {
                String name = key + i;
                byName.put(name, rows.enqueue(OutboxMessage.of("t", name.getBytes(StandardCharsets.UTF_8))
                        .withIdempotencyKey(name + "-" + System.nanoTime()).withPartitionKey(key)));
            }
        }
        return byName;
    }

    private List<String> drain(DrainOptions.AttemptsExhausted policy, ClaimMode mode, JdbcOutboxStore rows) {
        InMemoryLeaseManager manager = new InMemoryLeaseManager(clock);
        List<String> emitted = Collections.synchronizedList(new ArrayList<>());
        try (PartitionedOutboxClaimStore store = PartitionedOutboxClaimStore.open(rows, JdbcSlotStore.open(dataSource(), rows, clock),
                manager, new JdbcWorkerGroup(dataSource(), rows, clock), "w", Duration.ofSeconds(30), Duration.ofSeconds(10),
                true, mode, clock)) {
            OutboxDrain drain = OutboxDrain.builder().store(store).clock(clock)
                    .provider(envelope -> {
                        String name = new String(envelope.payload(), StandardCharsets.UTF_8);
                        emitted.add(name);
                        return name.equals("A0") ? ProviderOutcome.retryable("503 for A0") : ProviderOutcome.delivered();
                    })
                    .options(DrainOptions.builder().owner("w").batchSize(10).maxAttempts(MAX_ATTEMPTS)
                            .backoff(Duration.ofMillis(1), Duration.ofMillis(10)).whenAttemptsExhausted(policy).build())
                    .build();
            for (int cycle = 0; cycle < 12; cycle++) {
                drain.runOnce();
                store.keeper().tick(); // a lean retry waits for its slot's next grant
                clock.advance(Duration.ofMillis(20)); // every retry is due again
            }
            drain.close();
        }
        return emitted;
    }

    @ParameterizedTest
    @EnumSource(ClaimMode.class)
    void aDeadLetteredHeadLetsItsKeyMoveOnAndNeverHeldTheOtherKeyBack(ClaimMode mode) {
        JdbcOutboxStore rows = freshStore();
        Map<String, OutboxEntry> e = enqueueTwoKeys(rows);
        List<String> emitted = drain(DrainOptions.AttemptsExhausted.DEAD_LETTER, mode, rows);

        assertThat(emitted.stream().filter("A0"::equals)).hasSize(MAX_ATTEMPTS);
        assertThat(emitted.stream().filter(n -> n.startsWith("B"))).containsExactly("B0", "B1", "B2");
        assertThat(emitted.indexOf("B2")).as("B finished before A could move on").isLessThan(emitted.indexOf("A1"));
        assertThat(emitted.indexOf("A1")).as("A1 only after A0's last attempt").isGreaterThan(emitted.lastIndexOf("A0"));
        assertThat(emitted.indexOf("A2")).isGreaterThan(emitted.indexOf("A1"));
        assertThat(status(rows, e.get("A0"))).isEqualTo(EmissionStatus.DEAD_LETTERED);
        assertThat(status(rows, e.get("A2"))).isEqualTo(EmissionStatus.DELIVERED);
    }

    @ParameterizedTest
    @EnumSource(ClaimMode.class)
    void keepRetryingHoldsTheKeyBackForAsLongAsItsHeadFails(ClaimMode mode) {
        JdbcOutboxStore rows = freshStore();
        Map<String, OutboxEntry> e = enqueueTwoKeys(rows);
        List<String> emitted = drain(DrainOptions.AttemptsExhausted.KEEP_RETRYING, mode, rows);

        assertThat(emitted.stream().filter("A0"::equals).count()).isGreaterThan(MAX_ATTEMPTS);
        assertThat(emitted).doesNotContain("A1", "A2").contains("B0", "B1", "B2");
        assertThat(status(rows, e.get("A0"))).isEqualTo(EmissionStatus.RETRYABLE_FAILURE);
        assertThat(status(rows, e.get("A1"))).isEqualTo(EmissionStatus.PENDING);
    }

    @ParameterizedTest
    @EnumSource(ClaimMode.class)
    void aKeyWithATrailingSpaceIsAnotherKeyThatAFailingHeadDoesNotHoldBack(ClaimMode mode) {
        JdbcOutboxStore rows = freshStore();
        Map<String, OutboxEntry> e = new HashMap<>();
        for (int i = 0; i < 3; i++) {
            for (Map.Entry<String, String> named : Map.of("A", "A", "S", "A ").entrySet()) {
                String name = named.getKey() + i;
                e.put(name, rows.enqueue(OutboxMessage.of("t", name.getBytes(StandardCharsets.UTF_8))
                        .withIdempotencyKey(name + "-" + System.nanoTime()).withPartitionKey(named.getValue())));
            }
        }
        List<String> emitted = drain(DrainOptions.AttemptsExhausted.KEEP_RETRYING, mode, rows);

        assertThat(emitted.stream().filter(n -> n.startsWith("S")))
                .as("key 'A ' is not key 'A': its entries go out in order while A0 keeps failing")
                .containsExactly("S0", "S1", "S2");
        assertThat(emitted).doesNotContain("A1", "A2");
        assertThat(status(rows, e.get("S2"))).isEqualTo(EmissionStatus.DELIVERED);
        assertThat(status(rows, e.get("A1"))).isEqualTo(EmissionStatus.PENDING);
    }

    private JdbcOutboxStore freshStore() {
        TableName table = new TableName(schema(), "ordered_" + System.nanoTime());
        new LeaseboxSchema(kind(), table, 16).applyAll(dataSource());
        return JdbcOutboxStore.builder(dataSource()).table(table).clock(clock).open();
    }

    private static EmissionStatus status(JdbcOutboxStore rows, OutboxEntry entry) {
        return rows.find(entry.id()).orElseThrow().status();
    }
}
