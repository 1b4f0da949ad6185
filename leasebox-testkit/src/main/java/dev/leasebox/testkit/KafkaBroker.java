package dev.leasebox.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;

/**
 * A single-node Kafka cluster in KRaft mode (one JVM that is broker and controller), started from the
 * {@code org.apache.kafka:kafka_2.13} jar on this JVM's class path, on free loopback ports, with its log
 * in a fresh directory. {@link #stop()} kills it (SIGKILL: a crash, not a shutdown) and {@link #start()}
 * starts it again on the same ports and log, so a test can take the broker away under a running drain.
 * Nothing needs installing: a module that uses it has {@code kafka_2.13} as a test dependency.
 */
public final class KafkaBroker implements AutoCloseable {

    static final String MAIN = "kafka.Kafka";
    static final String STORAGE_TOOL = "kafka.tools.StorageTool";
    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

    private final Path dir;
    private final int port;
    private final Path properties;
    private ManagedProcess process;

    private KafkaBroker(Path dir, int port, int controllerPort, Map<String, String> overrides) {
        this.dir = dir;
        this.port = port;
        this.properties = dir.resolve("server.properties");
        Map<String, String> config = new LinkedHashMap<>();
        config.put("process.roles", "broker,controller");
        config.put("node.id", "1");
        config.put("controller.quorum.voters", "1@127.0.0.1:" + controllerPort);
        config.put("listeners", "PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort);
        config.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + port);
        config.put("controller.listener.names", "CONTROLLER");
        config.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
        config.put("inter.broker.listener.name", "PLAINTEXT");
        config.put("log.dirs", dir.resolve("log").toString());
        config.put("num.partitions", "1");
        config.put("offsets.topic.replication.factor", "1");
        config.put("transaction.state.log.replication.factor", "1");
        config.put("transaction.state.log.min.isr", "1");
        config.put("share.coordinator.state.topic.replication.factor", "1");
        config.put("share.coordinator.state.topic.min.isr", "1");
        config.put("group.initial.rebalance.delay.ms", "0");
        config.put("auto.create.topics.enable", "false");
        config.putAll(overrides);
        try {
            Files.writeString(properties, config.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue())
                    .collect(Collectors.joining("\n", "", "\n")));
            // the broker's own logging, whatever the test class path configures: warnings and errors only
            Files.writeString(dir.resolve("logback.xml"), "<configuration><appender name=\"OUT\" "
                    + "class=\"ch.qos.logback.core.ConsoleAppender\"><encoder><pattern>%d %-5level %logger - %msg%n"
                    + "</pattern></encoder></appender><root level=\"WARN\"><appender-ref ref=\"OUT\"/></root></configuration>\n");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the broker's configuration in " + dir, e);
        }
    }

    /**
     * Formats a fresh log and starts the broker; {@code overrides} replace or add server properties (topics
     * are not created automatically unless {@code auto.create.topics.enable=true} is among them).
     */
    public static KafkaBroker start(Map<String, String> overrides) {
        try {
            Class.forName(MAIN, false, KafkaBroker.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException("the Kafka broker is not on this class path: add org.apache.kafka:kafka_2.13 as a"
                    + " test dependency of this module", e);
        }
        Path dir = ManagedProcess.tempDir("kafka").toPath();
        KafkaBroker broker = new KafkaBroker(dir, LoopbackPorts.free(), LoopbackPorts.free(), overrides);
        broker.format();
        broker.start();
        return broker;
    }

    private void format() {
        try (ManagedProcess tool = ManagedProcess.start("kafka-storage-format", javaCommand(STORAGE_TOOL,
                List.of("format", "-t", clusterId(), "-c", properties.toString())))) {
            int exit = tool.awaitExit(START_TIMEOUT);
            if (exit != 0) {
                throw new IllegalStateException("formatting the Kafka log in " + dir + " failed with exit " + exit + ":\n"
                        + tool.logTail());
            }
        }
    }

    /**
     * A random cluster id as Kafka writes them (URL-safe Base64 of 16 bytes), never starting with '-': the
     * storage tool would take such an id for an option and refuse to format (one id in 64).
     */
    static String clusterId() {
        while (true) {
            UUID id = UUID.randomUUID();
            ByteBuffer bytes = ByteBuffer.allocate(16).putLong(id.getMostSignificantBits()).putLong(id.getLeastSignificantBits());
            String text = Base64.getUrlEncoder().withoutPadding().encodeToString(bytes.array());
            if (!text.startsWith("-")) {
                return text;
            }
        }
    }

    private List<String> javaCommand(String main, List<String> args) {
        List<String> command = new java.util.ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx512m", "-XX:+UseSerialGC", "-Dlogback.configurationFile=" + dir.resolve("logback.xml"),
                "-cp", System.getProperty("java.class.path"), main));
        command.addAll(args);
        return command;
    }

    /** Starts the broker (again, after {@link #stop()}) and waits until it accepts connections. */
    public synchronized void start() {
        if (process != null && process.isAlive()) {
            return;
        }
        process = ManagedProcess.start("kafka-broker", javaCommand(MAIN, List.of(properties.toString())));
        process.awaitListening(port, START_TIMEOUT);
    }

    /** Kills the broker (SIGKILL) and waits for it to be gone; its log stays for {@link #start()}. */
    public synchronized void stop() {
        if (process != null) {
            process.kill();
        }
    }

    /** {@code 127.0.0.1:PORT}, the clients' {@code bootstrap.servers}. */
    public String bootstrapServers() {
        return "127.0.0.1:" + port;
    }

    public int port() {
        return port;
    }

    /** The broker's output, for failure messages. */
    public Path log() {
        return process == null ? dir : process.log();
    }

    @Override
    public synchronized void close() {
        if (process != null) {
            process.close();
        }
    }
}
