package dev.leasebox.kafka;

import dev.leasebox.Leasebox;
import dev.leasebox.claim.Granularity;
import dev.leasebox.drain.DrainOptions;
import dev.leasebox.jdbc.DatabaseKind;
import dev.leasebox.jdbc.LeaseboxSchema;
import dev.leasebox.jdbc.OutboxWriter;
import dev.leasebox.jdbc.TableName;
import dev.leasebox.outbox.OutboxMessage;
import dev.leasebox.testkit.KafkaBroker;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Drains built through the library's entry point, {@code Leasebox.drain(dataSource)}, over an outbox in the
 * PostgreSQL at 127.0.0.1:5432 ({@code LEASEBOX_JDBC_URL} to change it) into a real KRaft broker this class
 * starts: ordered partition claims keep each key's order in its one Kafka partition, and a broker killed in the
 * middle of a drain loses nothing.
 */
class KafkaDrainIT {

    private static final String JDBC_URL = System.getenv().getOrDefault("LEASEBOX_JDBC_URL",
            "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");

    private static KafkaBroker broker;
    private static TopicReader topics;

    private final PGSimpleDataSource ds = new PGSimpleDataSource();
    private TableName table;

    @BeforeAll
    static void startBroker() {
        broker = KafkaBroker.start(Map.of());
        topics = new TopicReader(broker.bootstrapServers());
    }

    @AfterAll
    static void stopBroker() {
        if (broker != null) {
            broker.close();
        }
    }

    @BeforeEach
    void freshOutbox() {
        ds.setUrl(JDBC_URL);
        table = TableName.parse("kafka_it_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12));
        new LeaseboxSchema(DatabaseKind.POSTGRESQL, table).applyAll(ds);
    }

    @AfterEach
    void dropOutbox() throws SQLException {
        execute("DROP TABLE IF EXISTS " + table + ", " + table + "_claim_styles, " + table + "_lease_slots, "
                + table + "_workers, " + table + "_leases CASCADE");
        execute("DROP SEQUENCE IF EXISTS " + table + "_claim_token_seq, " + table + "_lease_fence_seq");
    }

    @Test
    void orderedPartitionClaimsKeepEachKeysOrderInItsOnePartition() throws Exception {
        String topic = topics.create(4, Map.of());
        int entries = 240;
        enqueue(entries, 12);
        DrainOptions options = DrainOptions.builder().owner("ordered").concurrency(4).batchSize(20)
                .leaseDuration(Duration.ofSeconds(10)).build();
        try (KafkaProvider provider = KafkaProvider.open(new KafkaTarget(broker.bootstrapServers(), topic), Duration.ofSeconds(5));
             Leasebox drain = Leasebox.drain(ds).table(table).provider(provider).options(options)
                     .granularity(Granularity.PARTITION).ordered(true).build()) {
            drain.start();
            await("every entry DELIVERED").atMost(Duration.ofSeconds(90)).until(() -> count("status = 'DELIVERED'") == entries);
        }
        List<TopicReader.Received> records = topics.readAll(topic, entries);
        assertThat(records).hasSize(entries);
        Map<String, List<TopicReader.Received>> byKey = records.stream()
                .collect(Collectors.groupingBy(TopicReader.Received::key));
        assertThat(byKey).hasSize(12);
        for (Map.Entry<String, List<TopicReader.Received>> e : byKey.entrySet()) {
            List<TopicReader.Received> ofKey = e.getValue();
            assertThat(ofKey.stream().map(TopicReader.Received::partition).distinct()).as("partitions of %s", e.getKey()).hasSize(1);
            List<Long> ids = ofKey.stream().map(TopicReader.Received::entryId).toList(); // in offset order
            assertThat(ids).as("entry ids of %s in offset order", e.getKey()).isSorted();
        }
        assertThat(records.stream().map(TopicReader.Received::partition).distinct().count())
                .as("keys spread over the topic's partitions").isGreaterThan(1);
    }

    @Test
    void aBrokerKilledMidDrainLosesNothingAndRepeatsOnlyRetriedEntries() throws Exception {
        String topic = topics.create(2, Map.of());
        int entries = 400;
        enqueue(entries, 20);
        DrainOptions options = DrainOptions.builder().owner("outage").concurrency(2).batchSize(10)
                .leaseDuration(Duration.ofSeconds(10)).maxAttempts(1_000)
                .backoff(Duration.ofMillis(200), 2.0, Duration.ofSeconds(1), 0.5).build();
        try (KafkaProvider provider = KafkaProvider.open(new KafkaTarget(broker.bootstrapServers(), topic), Duration.ofSeconds(2));
             Leasebox drain = Leasebox.drain(ds).table(table).provider(provider).options(options).build()) {
            drain.start();
            await("some entries delivered before the outage").atMost(Duration.ofSeconds(60))
                    .until(() -> count("status = 'DELIVERED'") >= 20);
            broker.stop();
            await("sends failing while the broker is down").atMost(Duration.ofSeconds(60))
                    .until(() -> count("status = 'RETRYABLE_FAILURE'") > 0);
            long deliveredDuringOutage = count("status = 'DELIVERED'");
            assertThat(deliveredDuringOutage).as("entries delivered, some left").isLessThan(entries);
            broker.start();
            await("every entry DELIVERED after the broker came back").atMost(Duration.ofSeconds(120))
                    .until(() -> count("status = 'DELIVERED'") == entries);
        }
        List<TopicReader.Received> records = topics.readAll(topic, entries);
        Map<String, Long> copies = records.stream()
                .collect(Collectors.groupingBy(TopicReader.Received::idempotencyKey, Collectors.counting()));
        assertThat(copies.keySet()).as("every entry reached the topic").isEqualTo(idempotencyKeys());
        Map<String, Integer> attempts = attemptsByKey();
        Set<String> repeated = copies.entrySet().stream().filter(e -> e.getValue() > 1).map(Map.Entry::getKey)
                .collect(Collectors.toSet());
        assertThat(repeated).as("entries held twice were retried (their first acknowledgement was lost)")
                .allMatch(key -> attempts.get(key) > 1);
        assertThat(attempts.values().stream().filter(a -> a > 1).count()).as("entries retried through the outage")
                .isPositive();
    }

    private void enqueue(int entries, int keys) {
        OutboxWriter writer = OutboxWriter.of(table, Clock.systemUTC());
        for (int i = 0; i < entries; i++) {
            writer.enqueue(ds, OutboxMessage.of("order.placed", ("{\"n\":" + i + "}").getBytes(StandardCharsets.UTF_8))
                    .withPartitionKey("customer-" + (i % keys)));
        }
    }

    private Set<String> idempotencyKeys() throws SQLException {
        return attemptsByKey().keySet();
    }

    private Map<String, Integer> attemptsByKey() throws SQLException {
        Map<String, Integer> attempts = new HashMap<>();
        try (Connection c = ds.getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT idempotency_key, attempt_count FROM " + table)) {
            while (rs.next()) {
                attempts.put(rs.getString(1), rs.getInt(2));
            }
        }
        return attempts;
    }

    private long count(String where) throws SQLException {
        try (Connection c = ds.getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT count(*) FROM " + table + " WHERE " + where)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private void execute(String sql) throws SQLException {
        try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
            st.execute(sql);
        }
    }
}
