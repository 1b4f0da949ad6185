package example.springboot;

import dev.leasebox.kafka.KafkaProvider;
import dev.leasebox.testkit.KafkaBroker;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.utils.AppInfoParser;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import javax.sql.DataSource;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The same service draining to a Kafka topic ({@code leasebox.provider=kafka:BOOTSTRAP/TOPIC}, leasebox-kafka on
 * the class path) with the kafka-clients Spring Boot's dependency management picks: the pom pins no Kafka
 * version. The broker is a KRaft broker of that same version, started from the {@code kafka_2.13} jar Boot
 * manages; leases come from the database. Failsafe passes the parent's {@code kafka.version} as
 * {@value #MANAGED_VERSION}.
 */
@SpringBootTest
@DirtiesContext(classMode = DirtiesContext.ClassMode.AFTER_CLASS)
class OrdersOnKafkaIT {

    static final String MANAGED_VERSION = "example.boot-kafka-version";

    private static final ExampleRun RUN = new ExampleRun("sb_example_kafka");
    private static final String TOPIC = RUN.namespace;
    private static KafkaBroker broker;

    @BeforeAll
    static void startBrokerAndCreateTopic() throws Exception {
        broker = KafkaBroker.start(Map.of());
        // the bean below stops it with the context; a context that fails to start leaves that to the JVM's exit
        Runtime.getRuntime().addShutdownHook(new Thread(broker::close));
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic(TOPIC, 2, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
    }

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        RUN.properties(registry, "database", () -> "kafka:" + broker.bootstrapServers() + "/" + TOPIC);
    }

    /** Drops the run's tables and stops the broker when the context closes: after the drain has stopped. */
    @TestConfiguration
    static class DropTablesOnClose {
        @Bean
        DisposableBean dropExampleTablesAndStopBroker(DataSource dataSource) {
            return () -> {
                RUN.drop(dataSource);
                broker.close();
            };
        }
    }

    @Autowired
    OrderService orders;

    @Autowired
    JdbcTemplate jdbc;

    @AfterAll
    static void stopReceiver() {
        RUN.stopReceiver();
    }

    @Test
    void theKafkaClientsAtRunTimeIsTheOneSpringBootManages() {
        String managed = System.getProperty(MANAGED_VERSION);
        assertThat(managed).as("system property %s, the kafka.version of Spring Boot's parent (failsafe sets it)",
                MANAGED_VERSION).isNotBlank();
        assertThat(AppInfoParser.getVersion()).as("the kafka-clients on the class path").isEqualTo(managed);
    }

    @Test
    void ordersWrittenToTheOutboxArriveOnTheTopic() {
        for (int i = 0; i < 20; i++) {
            orders.placeOrder("K-" + i, "customer-" + (i % 3), 100 + i);
        }
        Map<String, ConsumerRecord<String, String>> received = readTopic(20);
        assertThat(received).hasSize(20);
        for (int i = 0; i < 20; i++) {
            ConsumerRecord<String, String> record = received.get("order-K-" + i);
            assertThat(record).as("record of order-K-" + i).isNotNull();
            assertThat(record.key()).isEqualTo("customer-" + (i % 3));
            assertThat(record.value()).isEqualTo("{\"order\":\"K-" + i + "\",\"customer\":\"customer-" + (i % 3)
                    + "\",\"amountCents\":" + (100 + i) + "}");
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> jdbc.queryForObject("SELECT count(*) FROM " + RUN.outbox
                + " WHERE idempotency_key LIKE 'order-K-%' AND status = 'DELIVERED'", Long.class) == 20);
    }

    /** The topic's records by their idempotency key, once at least {@code count} distinct keys are there. */
    private static Map<String, ConsumerRecord<String, String>> readTopic(int count) {
        Map<String, ConsumerRecord<String, String>> received = new HashMap<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class,
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class))) {
            List<TopicPartition> partitions = consumer.partitionsFor(TOPIC).stream()
                    .map(p -> new TopicPartition(TOPIC, p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            await("at least " + count + " records on " + TOPIC).atMost(Duration.ofSeconds(60)).until(() -> {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                    received.put(new String(record.headers().lastHeader(KafkaProvider.IDEMPOTENCY_KEY).value(),
                            StandardCharsets.UTF_8), record);
                }
                return received.size() >= count;
            });
        }
        return received;
    }
}
