package dev.leasebox.chaos.harness;

import dev.leasebox.chaos.check.FinalState;
import dev.leasebox.chaos.evidence.Delivery;
import dev.leasebox.chaos.fault.FaultLog;
import dev.leasebox.chaos.history.FaultEvent;
import dev.leasebox.testkit.LoopbackPorts;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The Kafka broker a run's workers send to ({@code --provider kafka:127.0.0.1:PORT/TOPIC}): one KRaft JVM
 * (broker and controller) on free loopback ports with its log in the run directory, and a topic whose records
 * are stamped with the broker's append time. After the run, {@link #read()} consumes the whole topic: every
 * record is one delivery, on the broker's clock (the same machine's wall clock as the database's, counted in
 * milliseconds), so the checker judges from what the broker holds, not from what the workers say.
 */
public final class KafkaDownstream implements AutoCloseable {

    /** The headers the kafka provider sets (KafkaProvider's names). */
    static final String IDEMPOTENCY_KEY = "leasebox-idempotency-key";
    static final String FENCE = "leasebox-fence";
    static final String ENTRY_ID = "leasebox-entry-id";
    static final String OWNER = "leasebox-owner";
    static final int PARTITIONS = 4;

    private final Path dir;
    private final int port;
    private final String topic = "chaos-" + UUID.randomUUID().toString().substring(0, 8);
    private ChaosProcess broker;
    private int starts;

    private KafkaDownstream(Path dir, int port) {
        this.dir = dir;
        this.port = port;
    }

    /** Formats a log in {@code runDir/kafka}, starts the broker and creates the topic. */
    public static KafkaDownstream start(Path runDir) {
        List<Integer> ports = LoopbackPorts.free(2);
        KafkaDownstream kafka = new KafkaDownstream(runDir.resolve("kafka"), ports.get(0));
        try {
            kafka.configure(ports.get(1));
            kafka.format();
            kafka.startBroker();
            kafka.createTopic();
        } catch (RuntimeException e) {
            kafka.close();
            throw e;
        }
        return kafka;
    }

    private void configure(int controllerPort) {
        List<String> lines = List.of("process.roles=broker,controller", "node.id=1",
                "controller.quorum.voters=1@127.0.0.1:" + controllerPort,
                "listeners=PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort,
                "advertised.listeners=PLAINTEXT://127.0.0.1:" + port, "controller.listener.names=CONTROLLER",
                "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
                "inter.broker.listener.name=PLAINTEXT", "log.dirs=" + dir.resolve("log"), "num.partitions=1",
                "offsets.topic.replication.factor=1", "transaction.state.log.replication.factor=1",
                "transaction.state.log.min.isr=1", "share.coordinator.state.topic.replication.factor=1",
                "share.coordinator.state.topic.min.isr=1", "group.initial.rebalance.delay.ms=0",
                "auto.create.topics.enable=false");
        try {
            Files.createDirectories(dir);
            Files.write(dir.resolve("server.properties"), lines);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the Kafka broker's configuration in " + dir + ": " + e.getMessage(), e);
        }
    }

    private List<String> java(String main, List<String> args) {
        return ChaosProcess.javaCommand(main, List.of("-Xmx384m",
                "-Dlogback.configurationFile=chaos-worker-logback.xml"), args);
    }

    private void format() {
        // Kafka's own ids never start with '-', which the storage tool would take for an option
        String clusterId = org.apache.kafka.common.Uuid.randomUuid().toString();
        try (ChaosProcess tool = ChaosProcess.start("kafka-storage-format", java("kafka.tools.StorageTool",
                List.of("format", "-t", clusterId, "-c", dir.resolve("server.properties").toString())), Map.of(),
                dir.resolve("format.log"))) {
            if (!Poll.until(() -> !tool.isAlive(), Duration.ofMillis(50), Duration.ofSeconds(60)) || tool.exitCode() != 0) {
                throw new IllegalStateException("formatting the Kafka log in " + dir + " failed; log " + tool.log() + ":\n"
                        + tool.logTail());
            }
        }
    }

    private void startBroker() {
        starts++;
        broker = ChaosProcess.start("kafka", java("kafka.Kafka", List.of(dir.resolve("server.properties").toString())),
                Map.of(), dir.resolve("broker-" + starts + ".log"));
        broker.awaitListening("127.0.0.1", port, Duration.ofSeconds(60));
    }

    private Map<String, Object> clientConfig() {
        return Map.of("bootstrap.servers", bootstrapServers());
    }

    private void createTopic() {
        try (Admin admin = Admin.create(clientConfig())) {
            admin.createTopics(List.of(new NewTopic(topic, PARTITIONS, (short) 1)
                    .configs(Map.of("message.timestamp.type", "LogAppendTime")))).all().get();
        } catch (Exception e) {
            throw new IllegalStateException("cannot create topic " + topic + " on " + bootstrapServers() + ": " + e.getMessage(), e);
        }
    }

    public String bootstrapServers() {
        return "127.0.0.1:" + port;
    }

    /** What workers pass to {@code --provider}. */
    public String providerSpec() {
        return "kafka:" + bootstrapServers() + "/" + topic;
    }

    /** Kills the broker (SIGKILL), leaves it down for {@code downtime}, starts it again; each step in the fault log. */
    public void restart(FaultLog faults, Duration downtime) {
        broker.kill();
        faults.record(FaultEvent.PROVIDER_FAULTS, "kafka", "broker SIGKILLed (pid " + broker.pid() + "): sends time out"
                + " and acknowledgements in flight are lost");
        Poll.pause(downtime);
        startBroker();
        faults.record(FaultEvent.PROVIDER_HEALTHY, "kafka", "broker started again on " + bootstrapServers()
                + " (pid " + broker.pid() + ")");
    }

    /** What the topic holds: every record as a delivery, and per idempotency key what an inbox would say. */
    public record Received(List<Delivery> deliveries, Map<String, FinalState.Received> inbox) {
    }

    /** Reads the whole topic from the beginning to its current end. */
    public Received read() {
        List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
        Map<String, Object> config = new HashMap<>(clientConfig());
        config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config)) {
            List<TopicPartition> partitions = new ArrayList<>();
            for (int p = 0; p < PARTITIONS; p++) {
                partitions.add(new TopicPartition(topic, p));
            }
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> ends = consumer.endOffsets(partitions, Duration.ofSeconds(30));
            boolean done = Poll.until(() -> {
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
                return partitions.stream().allMatch(p -> consumer.position(p) >= ends.get(p));
            }, Duration.ofMillis(1), Duration.ofSeconds(120));
            if (!done) {
                throw new IllegalStateException("could not read topic " + topic + " to its end " + ends + " within 120 s");
            }
        }
        return received(records);
    }

    private static Received received(List<ConsumerRecord<byte[], byte[]>> records) {
        records.sort(Comparator.comparingLong((ConsumerRecord<byte[], byte[]> r) -> r.timestamp())
                .thenComparingInt(ConsumerRecord::partition).thenComparingLong(ConsumerRecord::offset));
        List<Delivery> deliveries = new ArrayList<>();
        Map<String, FinalState.Received> inbox = new HashMap<>();
        for (ConsumerRecord<byte[], byte[]> r : records) {
            if (r.timestampType() != TimestampType.LOG_APPEND_TIME) {
                throw new IllegalStateException("record " + r.partition() + "@" + r.offset() + " is not stamped with the"
                        + " broker's append time: " + r.timestampType());
            }
            String key = header(r, IDEMPOTENCY_KEY);
            String fence = header(r, FENCE);
            long entry = Long.parseLong(header(r, ENTRY_ID));
            Long f = fence == null ? null : Long.valueOf(fence);
            deliveries.add(new Delivery(deliveries.size() + 1, key, entry, f, header(r, OWNER), r.offset(), r.timestamp() * 1000));
            // one key's entries share a partition: their offsets order their first deliveries
            inbox.merge(key, new FinalState.Received(key, entry, 1, f == null ? 0 : f, r.offset()),
                    (a, b) -> new FinalState.Received(key, entry, a.deliveries() + 1, Math.max(a.lastFence(), b.lastFence()),
                            Math.min(a.firstSeq(), b.firstSeq())));
        }
        return new Received(deliveries, inbox);
    }

    private static String header(ConsumerRecord<byte[], byte[]> r, String name) {
        Header h = r.headers().lastHeader(name);
        return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        if (broker != null) {
            broker.close();
        }
    }
}
