package dev.leasebox.spring;

import dev.leasebox.jdbc.LeaseboxSchema;
import dev.leasebox.kafka.KafkaProvider;
import dev.leasebox.outbox.OutboxMessage;
import dev.leasebox.provider.OutboxProvider;
import dev.leasebox.provider.ProviderOutcome;
import dev.leasebox.testkit.KafkaBroker;
import dev.leasebox.testkit.LoopbackPorts;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code leasebox.provider=kafka:BOOTSTRAP/TOPIC} with leasebox-kafka on the class path, against a real KRaft
 * broker this class starts and the PostgreSQL of this machine; an application's own OutboxProvider bean still wins.
 */
class LeaseboxKafkaStarterIT {

    private static KafkaBroker broker;
    private String table;
    private String topic;

    @BeforeAll
    static void startBroker() {
        broker = KafkaBroker.start(Map.of());
    }

    @AfterAll
    static void stopBroker() {
        if (broker != null) {
            broker.close();
        }
    }

    @BeforeEach
    void createTables() throws Exception {
        table = TestTables.outbox(LeaseboxSchema.LATEST_VERSION);
        topic = TestTables.uniqueName("sb_topic");
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", broker.bootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
        }
    }

    @AfterEach
    void dropTables() throws Exception {
        TestTables.dropOutbox(table);
    }

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class, LeaseboxAutoConfiguration.class))
                .withPropertyValues("spring.datasource.url=" + TestTables.JDBC_URL, "leasebox.table=" + table);
    }

    @Test
    void drainsIntoTheTopicNamedByTheProperty() {
        runner().withPropertyValues("leasebox.provider=kafka:" + broker.bootstrapServers() + "/" + topic).run(context -> {
            assertThat(context).hasNotFailed();
            TransactionalOutbox outbox = context.getBean(TransactionalOutbox.class);
            for (int i = 0; i < 10; i++) {
                outbox.enqueue(OutboxMessage.of("order.placed", ("o-" + i).getBytes(StandardCharsets.UTF_8))
                        .withIdempotencyKey("order-" + i).withPartitionKey("customer-" + (i % 3)));
            }
            List<ConsumerRecord<byte[], byte[]>> records = readAtLeast(10);
            assertThat(records).hasSize(10);
            assertThat(records).allSatisfy(r -> {
                assertThat(header(r, KafkaProvider.IDEMPOTENCY_KEY)).startsWith("order-");
                assertThat(Long.parseLong(header(r, KafkaProvider.FENCE))).isPositive();
                assertThat(new String(r.key(), StandardCharsets.UTF_8)).startsWith("customer-");
            });
            await().atMost(Duration.ofSeconds(30)).until(() ->
                    TestTables.count("SELECT count(*) FROM " + table + " WHERE status = 'DELIVERED'") == 10);
        });
    }

    @Test
    void theApplicationsProviderBeanWinsOverTheProperty() {
        Set<String> delivered = ConcurrentHashMap.newKeySet();
        OutboxProvider own = envelope -> {
            delivered.add(envelope.idempotencyKey());
            return ProviderOutcome.delivered();
        };
        // nothing listens there: opening the property's provider would fail the start
        runner().withPropertyValues("leasebox.provider=kafka:127.0.0.1:" + LoopbackPorts.free() + "/" + topic)
                .withBean(OutboxProvider.class, () -> own).run(context -> {
                    assertThat(context).hasNotFailed();
                    context.getBean(TransactionalOutbox.class).enqueue(OutboxMessage.of("e", new byte[]{1}).withIdempotencyKey("own-1"));
                    await().atMost(Duration.ofSeconds(30)).until(() -> delivered.contains("own-1"));
                });
    }

    @Test
    void aMalformedKafkaTargetFailsTheStartNamingThePropertyAndTheForm() {
        runner().withPropertyValues("leasebox.provider=kafka:" + broker.bootstrapServers()).run(context -> {
            assertThat(context).hasFailed();
            assertThat(org.assertj.core.util.Throwables.getStackTrace(context.getStartupFailure()))
                    .contains("leasebox.provider=kafka:" + broker.bootstrapServers() + ": ")
                    .contains("names no topic").contains("kafka:BOOTSTRAP/TOPIC");
        });
    }

    private List<ConsumerRecord<byte[], byte[]>> readAtLeast(int count) {
        List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class,
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class))) {
            TopicPartition partition = new TopicPartition(topic, 0);
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            await().atMost(Duration.ofSeconds(60)).until(() -> {
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
                return records.size() >= count;
            });
        }
        return records;
    }

    private static String header(ConsumerRecord<byte[], byte[]> r, String name) {
        return r.headers().lastHeader(name) == null ? null
                : new String(r.headers().lastHeader(name).value(), StandardCharsets.UTF_8);
    }
}
