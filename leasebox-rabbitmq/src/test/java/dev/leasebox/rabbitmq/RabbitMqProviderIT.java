package dev.leasebox.rabbitmq;

import dev.leasebox.testkit.LoopbackPorts;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.GetResponse;
import dev.leasebox.outbox.OutboxClaim;
import dev.leasebox.outbox.OutboxEntry;
import dev.leasebox.provider.Envelope;
import dev.leasebox.provider.ProviderOutcome;
import dev.leasebox.testkit.RequiredServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The rabbitmq provider against the RabbitMQ server at 127.0.0.1:5672 (guest/guest) or
 * {@code RABBITMQ_URL}: publisher confirms, message-id = idempotency key, fence in the headers.
 * A missing broker fails the test with one line saying what to install or start, as every missing server
 * does; {@code .ci/run} installs and starts RabbitMQ where it is missing.
 */
class RabbitMqProviderIT {

    private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

    private Connection connection;
    private Channel channel;
    private String exchange;
    private String queue;
    private String base;

    @BeforeEach
    void declareExchangeAndQueue() throws Exception {
        base = RequiredServer.fromEnvironment("RABBITMQ_URL").orElse("amqp://guest:guest@127.0.0.1:5672");
        assertThat(RequiredServer.fromEnvironment("RABBITMQ_URL").isPresent()
                        || RequiredServer.binary("rabbitmq-server", "/usr/sbin/rabbitmq-server").isPresent())
                .as("RabbitMQ is not installed here: apt-get install rabbitmq-server, or set RABBITMQ_URL")
                .isTrue();
        assertThat(RequiredServer.fromEnvironment("RABBITMQ_URL").isPresent() || LoopbackPorts.isListening(5672))
                .as("rabbitmq-server is installed but nothing listens on 127.0.0.1:5672: start it (rabbitmq-server -detached)")
                .isTrue();
        ConnectionFactory factory = new ConnectionFactory();
        factory.setUri(base);
        connection = factory.newConnection();
        channel = connection.createChannel();
        exchange = "leasebox-it-" + UUID.randomUUID();
        channel.exchangeDeclare(exchange, "topic", false, true, null);
        queue = channel.queueDeclare().getQueue();
        channel.queueBind(queue, exchange, "order.#");
    }

    @AfterEach
    void close() throws Exception {
        if (connection != null) {
            channel.exchangeDelete(exchange);
            connection.close();
        }
    }

    private static Envelope envelope(String type) {
        OutboxEntry entry = OutboxEntry.builder().id(5).idempotencyKey("key-5").type(type).payload("hello".getBytes())
                .createdAt(NOW).build().toBuilder().claim("w", 77, NOW, NOW.plusSeconds(5), 1).build();
        return Envelope.forClaim(new OutboxClaim(entry, "w", 77, NOW, NOW.plusSeconds(5), 1));
    }

    @Test
    void aConfirmedPublishIsDeliveredWithTheIdempotencyKeyAsMessageId() throws Exception {
        try (RabbitMqProvider provider = new RabbitMqProvider(base + "/" + exchange, Duration.ofSeconds(5))) {
            assertThat(provider.emit(envelope("order.placed"))).isInstanceOf(ProviderOutcome.Delivered.class);
        }
        GetResponse message = channel.basicGet(queue, true);
        assertThat(message).isNotNull();
        assertThat(message.getProps().getMessageId()).isEqualTo("key-5");
        assertThat(message.getProps().getHeaders().get("leasebox-fence")).isEqualTo(77L);
        assertThat(new String(message.getBody())).isEqualTo("hello");
    }

    @Test
    void anUnroutableMessageIsAPermanentError() throws Exception {
        try (RabbitMqProvider provider = new RabbitMqProvider(base + "/" + exchange, Duration.ofSeconds(5))) {
            assertThat(provider.emit(envelope("invoice.sent"))).isInstanceOf(ProviderOutcome.PermanentError.class);
        }
    }

    @Test
    void aMissingExchangeFailsAtStartNamingIt() {
        assertThatThrownBy(() -> new RabbitMqProvider(base + "/no-such-exchange-" + UUID.randomUUID(), Duration.ofSeconds(5)))
                .hasMessageContaining("exchange no-such-exchange").hasMessageContaining("does the exchange exist");
    }
}
