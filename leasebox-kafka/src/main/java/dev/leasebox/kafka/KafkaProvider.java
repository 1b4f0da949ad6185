package dev.leasebox.kafka;

import dev.leasebox.provider.Envelope;
import dev.leasebox.provider.OutboxProvider;
import dev.leasebox.provider.ProviderOutcome;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Sends each envelope to one Kafka topic with an idempotent producer ({@code acks=all},
 * {@code enable.idempotence=true}): an entry is DELIVERED only when the broker acknowledged the record,
 * that is when every in-sync replica has it.
 *
 * <p><b>Record.</b> The key is the entry's partition key (no key when it has none), so every entry of one
 * key goes to one partition; with {@code --ordered} the drain emits one key's entries one after another,
 * each after the previous one's acknowledgement, so they land in that partition in outbox order. The value
 * is the payload. The headers are the entry's own, then {@value #IDEMPOTENCY_KEY} (the same on every
 * emission of the entry), {@value #FENCE} (the claim token, decimal; absent on the non-claiming path),
 * {@value #ENTRY_ID}, {@value #TYPE} and {@value #OWNER} (the emitting worker), all UTF-8 text.
 *
 * <p><b>Outcomes.</b> See {@link KafkaOutcomes}: retriable client errors (timeouts, a broker gone, leader
 * changes) are retryable; authorization failures, a record too large for the topic and a topic that does
 * not exist (the broker does not create it) are permanent.
 *
 * <p><b>Duplicates.</b> The idempotent producer removes the duplicates of its own retries within one
 * send. When a send's acknowledgement is lost (a broker stopped after appending it, a delivery timeout),
 * the drain retries the entry and Kafka holds it twice, both copies carrying the same
 * {@value #IDEMPOTENCY_KEY}: consumers deduplicate on it, or keep the highest {@value #FENCE} per key.
 */
public final class KafkaProvider implements OutboxProvider, AutoCloseable {

    public static final String IDEMPOTENCY_KEY = "leasebox-idempotency-key";
    public static final String FENCE = "leasebox-fence";
    public static final String ENTRY_ID = "leasebox-entry-id";
    public static final String TYPE = "leasebox-type";
    public static final String OWNER = "leasebox-owner";

    private static final Logger LOG = LoggerFactory.getLogger(KafkaProvider.class);

    private final KafkaProducer<byte[], byte[]> producer;
    private final KafkaOutcomes outcomes;
    private final String topic;
    private final Duration timeout;
    private final String description;

    private KafkaProvider(Map<String, Object> clientConfig, String topic, Duration timeout) {
        this.topic = Objects.requireNonNull(topic, "topic");
        this.timeout = Objects.requireNonNull(timeout, "timeout");
        Object servers = clientConfig.get(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG);
        this.description = "kafka " + servers + " topic " + topic;
        this.producer = new KafkaProducer<>(producerConfig(clientConfig, timeout));
        this.outcomes = new KafkaOutcomes(topic, timeout, () -> Admin.create(adminConfig(clientConfig, timeout)));
    }

    /**
     * Opens a provider on {@code target} with the defaults: plaintext, {@code timeout} for one send (the
     * delivery timeout) and for start-up. Fails at once, naming the target, when the brokers cannot be
     * reached or the topic does not exist and the brokers do not create it.
     */
    public static KafkaProvider open(KafkaTarget target, Duration timeout) {
        return open(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, target.bootstrapServers()), target.topic(), timeout);
    }

    /**
     * Opens a provider with the caller's client settings ({@code bootstrap.servers} and whatever else the
     * cluster needs: TLS, SASL, {@code client.id}). The settings the guarantees rest on are set here and a
     * contradicting one is refused: {@code acks=all}, {@code enable.idempotence=true}, byte-array serializers.
     */
    public static KafkaProvider open(Map<String, Object> clientConfig, String topic, Duration timeout) {
        KafkaClientsVersion.requireSupported(KafkaProvider.class.getClassLoader());
        if (!clientConfig.containsKey(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG)) {
            throw new IllegalArgumentException("kafka provider: the client settings name no bootstrap.servers");
        }
        requireUnset(clientConfig, ProducerConfig.ACKS_CONFIG, "all", "-1");
        requireUnset(clientConfig, ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        KafkaProvider provider = new KafkaProvider(clientConfig, topic, timeout);
        try {
            provider.awaitTopic();
        } catch (RuntimeException e) {
            provider.close();
            throw e;
        }
        return provider;
    }

    private static void requireUnset(Map<String, Object> config, String key, String... allowed) {
        Object value = config.get(key);
        if (value != null && !java.util.Arrays.asList(allowed).contains(String.valueOf(value).trim().toLowerCase(java.util.Locale.ROOT))) {
            throw new IllegalArgumentException("kafka provider: " + key + "=" + value + " is refused: an entry counts as"
                    + " delivered only with acks=all and enable.idempotence=true; leave " + key + " out");
        }
    }

    private static Map<String, Object> producerConfig(Map<String, Object> clientConfig, Duration timeout) {
        Map<String, Object> config = new HashMap<>(clientConfig);
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        config.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 5); // the most idempotence keeps in order
        config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        config.putIfAbsent(ProducerConfig.CLIENT_ID_CONFIG, "leasebox");
        config.putIfAbsent(ProducerConfig.LINGER_MS_CONFIG, 0);
        int millis = (int) Math.min(Integer.MAX_VALUE, timeout.toMillis());
        // delivery.timeout.ms must cover linger.ms + request.timeout.ms
        config.putIfAbsent(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, Math.max(1, millis / 2));
        config.putIfAbsent(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, millis);
        config.putIfAbsent(ProducerConfig.MAX_BLOCK_MS_CONFIG, millis);
        return config;
    }

    private static Map<String, Object> adminConfig(Map<String, Object> clientConfig, Duration timeout) {
        Map<String, Object> config = new HashMap<>();
        clientConfig.forEach((key, value) -> {
            if (AdminClientConfig.configNames().contains(key)) {
                config.put(key, value);
            }
        });
        config.put(AdminClientConfig.CLIENT_ID_CONFIG, "leasebox-topic-check");
        int millis = (int) Math.min(Integer.MAX_VALUE, timeout.toMillis());
        config.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, Math.max(1, millis / 2));
        config.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, millis);
        return config;
    }

    /** Fetches the topic's partitions (which makes brokers that create topics create it), or fails saying why. */
    private void awaitTopic() {
        try {
            int partitions = producer.partitionsFor(topic).size();
            LOG.info("Kafka provider ready: {} ({} partitions)", description, partitions);
        } catch (KafkaException e) {
            String why = outcomes.topicMissing().map(missing -> missing
                    ? "topic " + topic + " does not exist and the brokers do not create it: create it, or enable"
                      + " auto.create.topics.enable on the brokers"
                    : "the brokers answer but gave no partitions of " + topic + " within " + timeout + ": "
                      + KafkaOutcomes.rootMessage(e))
                    .orElse("no broker answered within " + timeout + " (are the brokers running and the addresses right?)");
            throw new IllegalStateException("kafka provider: cannot send to " + description + ": " + why, e);
        }
    }

    @Override
    public ProviderOutcome emit(Envelope envelope) throws InterruptedException {
        ProducerRecord<byte[], byte[]> record = new ProducerRecord<>(topic, null,
                envelope.partitionKey().map(k -> k.getBytes(StandardCharsets.UTF_8)).orElse(null),
                envelope.payload(), headers(envelope));
        Future<RecordMetadata> sent;
        try {
            sent = producer.send(record);
        } catch (KafkaException e) {
            return outcomes.of(e);
        }
        try {
            // the producer fails the send itself after delivery.timeout.ms; the margin only guards against a stall
            RecordMetadata metadata = sent.get(timeout.toMillis() + 5_000, TimeUnit.MILLISECONDS);
            return ProviderOutcome.delivered(metadata.topic() + "-" + metadata.partition() + "@" + metadata.offset());
        } catch (ExecutionException e) {
            return outcomes.of(e.getCause());
        } catch (TimeoutException e) {
            return ProviderOutcome.retryable("kafka: no acknowledgement from " + description + " within " + timeout);
        }
    }

    private static RecordHeaders headers(Envelope envelope) {
        RecordHeaders headers = new RecordHeaders();
        envelope.headers().forEach((name, value) -> headers.add(name, utf8(value)));
        headers.add(IDEMPOTENCY_KEY, utf8(envelope.idempotencyKey()));
        envelope.fence().ifPresent(fence -> headers.add(FENCE, utf8(Long.toString(fence))));
        headers.add(ENTRY_ID, utf8(Long.toString(envelope.entryId())));
        headers.add(TYPE, utf8(envelope.type()));
        headers.add(OWNER, utf8(envelope.owner()));
        return headers;
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /** Waits up to the timeout for sends in flight, then closes the producer and the topic checker. */
    @Override
    public void close() {
        try {
            producer.close(timeout);
        } finally {
            outcomes.close();
        }
    }

    @Override
    public String toString() {
        return description;
    }
}
