package dev.leasebox.kafka;

import dev.leasebox.outbox.OutboxClaim;
import dev.leasebox.outbox.OutboxEntry;
import dev.leasebox.provider.Envelope;
import dev.leasebox.provider.ProviderOutcome;
import dev.leasebox.testkit.KafkaBroker;
import dev.leasebox.testkit.LoopbackPorts;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The kafka provider against a real single-node KRaft broker this class starts on free loopback ports
 * (topics are not created automatically there): what a record carries, and which failures are permanent.
 */
class KafkaProviderIT {

    private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");
    private static final Duration TIMEOUT = Duration.ofSeconds(3);

    private static KafkaBroker broker;
    private static TopicReader topics;

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

    private static Envelope envelope(long id, String partitionKey, byte[] payload) {
        OutboxEntry.Builder entry = OutboxEntry.builder().id(id).idempotencyKey("key-" + id).type("order.placed")
                .payload(payload).createdAt(NOW).headers(Map.of("trace", "t-" + id));
        if (partitionKey != null) {
            entry.partitionKey(partitionKey);
        }
        return Envelope.forClaim(new OutboxClaim(entry.build(), "worker-a", 77, NOW, NOW.plusSeconds(5), 1));
    }

    private static KafkaProvider open(String topic) {
        return KafkaProvider.open(new KafkaTarget(broker.bootstrapServers(), topic), TIMEOUT);
    }

    @Test
    void anAcknowledgedSendIsDeliveredWithTheKeyTheIdempotencyKeyAndTheFence() throws Exception {
        String topic = topics.create(3, Map.of());
        try (KafkaProvider provider = open(topic)) {
            ProviderOutcome outcome = provider.emit(envelope(5, "customer-9", "hello".getBytes(StandardCharsets.UTF_8)));
            assertThat(outcome).isInstanceOf(ProviderOutcome.Delivered.class);
            assertThat(((ProviderOutcome.Delivered) outcome).detail()).startsWith(topic + "-").contains("@0");
        }
        List<TopicReader.Received> records = topics.readAll(topic, 1);
        assertThat(records).hasSize(1);
        TopicReader.Received r = records.get(0);
        assertThat(r.key()).isEqualTo("customer-9");
        assertThat(r.value()).isEqualTo("hello");
        assertThat(r.idempotencyKey()).isEqualTo("key-5");
        assertThat(r.fence()).isEqualTo(77L);
        assertThat(r.entryId()).isEqualTo(5L);
        assertThat(r.owner()).isEqualTo("worker-a");
    }

    @Test
    void entriesOfOneKeyGoToOnePartitionAndEntriesWithoutAKeyAreSentUnkeyed() throws Exception {
        String topic = topics.create(4, Map.of());
        try (KafkaProvider provider = open(topic)) {
            for (int i = 1; i <= 40; i++) {
                assertThat(provider.emit(envelope(i, i % 2 == 0 ? "k-" + (i % 5) : null, new byte[]{1})))
                        .isInstanceOf(ProviderOutcome.Delivered.class);
            }
        }
        List<TopicReader.Received> records = topics.readAll(topic, 40);
        assertThat(records).hasSize(40);
        assertThat(records.stream().filter(r -> r.entryId() % 2 == 1)).allMatch(r -> r.key() == null);
        Map<String, List<Integer>> partitionsByKey = records.stream().filter(r -> r.key() != null)
                .collect(java.util.stream.Collectors.groupingBy(TopicReader.Received::key,
                        java.util.stream.Collectors.mapping(TopicReader.Received::partition, java.util.stream.Collectors.toList())));
        assertThat(partitionsByKey).hasSize(5);
        assertThat(partitionsByKey.values()).allMatch(ps -> ps.stream().distinct().count() == 1);
    }

    @Test
    void aRecordTooLargeForTheTopicIsPermanent() throws Exception {
        String topic = topics.create(1, Map.of("max.message.bytes", "2048"));
        try (KafkaProvider provider = open(topic)) {
            ProviderOutcome outcome = provider.emit(envelope(6, "k", new byte[8192]));
            assertThat(outcome).isInstanceOf(ProviderOutcome.PermanentError.class);
            assertThat(((ProviderOutcome.PermanentError) outcome).message()).contains("RecordTooLargeException");
            // the provider still sends what fits
            assertThat(provider.emit(envelope(7, "k", new byte[100]))).isInstanceOf(ProviderOutcome.Delivered.class);
        }
    }

    @Test
    void aTopicDeletedUnderTheProviderIsPermanentWhenTheBrokerDoesNotCreateTopics() throws Exception {
        String topic = topics.create(1, Map.of());
        try (KafkaProvider provider = open(topic)) {
            assertThat(provider.emit(envelope(8, "k", new byte[1]))).isInstanceOf(ProviderOutcome.Delivered.class);
            topics.delete(topic);
            ProviderOutcome outcome = provider.emit(envelope(9, "k", new byte[1]));
            assertThat(outcome).isInstanceOf(ProviderOutcome.PermanentError.class);
            assertThat(((ProviderOutcome.PermanentError) outcome).message())
                    .contains("topic " + topic + " does not exist");
        }
    }

    @Test
    void aMissingTopicFailsAtStartNamingItAndWhatToDo() {
        assertThatThrownBy(() -> open("no-such-topic"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("topic no-such-topic does not exist")
                .hasMessageContaining("auto.create.topics.enable");
    }

    @Test
    void settingsThatWouldWeakenDeliveryAreRefused() {
        assertThatThrownBy(() -> KafkaProvider.open(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
                ProducerConfig.ACKS_CONFIG, "1"), "t", TIMEOUT))
                .hasMessageContaining("acks=1 is refused").hasMessageContaining("leave acks out");
        assertThatThrownBy(() -> KafkaProvider.open(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false"), "t", TIMEOUT))
                .hasMessageContaining("enable.idempotence=false is refused");
    }

    @Test
    void anUnreachableBrokerFailsAtStartNamingTheAddress() {
        int closed = LoopbackPorts.free();
        assertThatThrownBy(() -> KafkaProvider.open(new KafkaTarget("127.0.0.1:" + closed, "orders"), Duration.ofSeconds(2)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("127.0.0.1:" + closed).hasMessageContaining("no broker answered");
    }
}
