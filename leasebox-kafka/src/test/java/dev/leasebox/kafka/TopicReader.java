package dev.leasebox.kafka;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.awaitility.Awaitility.await;

/** Creates topics on the test broker and reads back everything they hold, as a downstream consumer would. */
final class TopicReader {

    /** One record as the broker stored it, with the headers the provider sets decoded. */
    record Received(int partition, long offset, String key, String value, String idempotencyKey, Long fence,
                    long entryId, String owner) {
    }

    private final String bootstrap;

    TopicReader(String bootstrap) {
        this.bootstrap = bootstrap;
    }

    /** A new topic of a unique name, with {@code partitions} partitions and the given topic configs. */
    String create(int partitions, Map<String, String> configs) throws Exception {
        String topic = "leasebox-it-" + UUID.randomUUID();
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1).configs(configs))).all().get();
        }
        return topic;
    }

    void delete(String topic) throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            admin.deleteTopics(List.of(topic)).all().get();
        }
    }

    /** Every record of {@code topic}, partition by partition in offset order, once at least {@code atLeast} are there. */
    List<Received> readAll(String topic, int atLeast) {
        Map<String, Object> config = Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class,
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class,
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        List<Received> received = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config)) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic).stream()
                    .map(p -> new TopicPartition(topic, p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            await("at least " + atLeast + " records in " + topic).atMost(Duration.ofSeconds(60)).until(() -> {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    received.add(decode(r));
                }
                return received.size() >= atLeast;
            });
            Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
            await("the rest of " + topic).atMost(Duration.ofSeconds(30)).until(() -> {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(100))) {
                    received.add(decode(r));
                }
                return partitions.stream().allMatch(p -> consumer.position(p) >= ends.get(p));
            });
        }
        received.sort(java.util.Comparator.comparingInt(Received::partition).thenComparingLong(Received::offset));
        return received;
    }

    private static Received decode(ConsumerRecord<byte[], byte[]> r) {
        String fence = header(r, KafkaProvider.FENCE);
        return new Received(r.partition(), r.offset(), r.key() == null ? null : new String(r.key(), StandardCharsets.UTF_8),
                new String(r.value(), StandardCharsets.UTF_8), header(r, KafkaProvider.IDEMPOTENCY_KEY),
                fence == null ? null : Long.valueOf(fence), Long.parseLong(header(r, KafkaProvider.ENTRY_ID)),
                header(r, KafkaProvider.OWNER));
    }

    private static String header(ConsumerRecord<byte[], byte[]> r, String name) {
        Header h = r.headers().lastHeader(name);
        return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }
}
