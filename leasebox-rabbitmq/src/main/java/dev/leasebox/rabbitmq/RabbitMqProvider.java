package dev.leasebox.rabbitmq;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import dev.leasebox.provider.Envelope;
import dev.leasebox.provider.OutboxProvider;
import dev.leasebox.provider.ProviderOutcome;

import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeoutException;

/**
 * Publishes each envelope to a RabbitMQ exchange with publisher confirms: an entry is DELIVERED only
 * after the broker confirmed it.
 *
 * <p>Address: {@code amqp://user:pass@host:port[/vhost]/EXCHANGE} — the last path segment is the
 * exchange, anything before it the (URL-encoded) vhost, default {@code /}. The routing key is the
 * entry's type. {@code message-id} is the idempotency key, so consumers (or the broker's
 * deduplication plugins) can collapse duplicates; headers carry {@code leasebox-fence} and the entry's
 * own headers. A nack or a confirm timeout is retryable; so is a broken connection (it is reopened on
 * the next emission). Publishing is mandatory: an unroutable message comes back as a return, which
 * a confirm alone would not reveal, and is reported as a permanent error.
 */
public final class RabbitMqProvider implements OutboxProvider, AutoCloseable {

    private final ConnectionFactory factory;
    private final String exchange;
    private final Duration confirmTimeout;
    private final String description;
    private Connection connection;
    private final ThreadLocal<Channel> channels = new ThreadLocal<>();

    public RabbitMqProvider(String address, Duration confirmTimeout) {
        this.confirmTimeout = Objects.requireNonNull(confirmTimeout, "confirmTimeout");
        URI uri;
        try {
            uri = new URI(address);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("rabbitmq provider: '" + address + "' is not a URI: " + e.getMessage());
        }
        String path = uri.getRawPath() == null ? "" : uri.getRawPath();
        int slash = path.lastIndexOf('/');
        if (slash < 0 || slash == path.length() - 1) {
            throw new IllegalArgumentException("rabbitmq provider: '" + address
                    + "' names no exchange; use amqp://user:pass@host:5672[/vhost]/EXCHANGE");
        }
        this.exchange = URLDecoder.decode(path.substring(slash + 1), StandardCharsets.UTF_8);
        String vhost = slash == 0 ? "/" : URLDecoder.decode(path.substring(1, slash), StandardCharsets.UTF_8);
        this.factory = new ConnectionFactory();
        try {
            factory.setUri(new URI(uri.getScheme(), uri.getRawUserInfo(), uri.getHost(), uri.getPort(), null, null, null)
                    .toString().replace("%3A", ":"));
        } catch (Exception e) {
            throw new IllegalArgumentException("rabbitmq provider: bad address '" + redacted(uri) + "': " + e.getMessage());
        }
        factory.setVirtualHost(vhost);
        factory.setConnectionTimeout((int) Math.min(Integer.MAX_VALUE, confirmTimeout.toMillis()));
        factory.setAutomaticRecoveryEnabled(false);
        this.description = "rabbitmq " + factory.getHost() + ":" + factory.getPort() + " vhost " + vhost
                + " exchange " + exchange;
        channel(); // fail at start, with the address, when the broker or the exchange is missing
    }

    private static String redacted(URI uri) {
        return uri.getScheme() + "://" + uri.getHost() + ":" + uri.getPort() + uri.getRawPath();
    }

    private synchronized Connection connection() throws IOException, TimeoutException {
        if (connection == null || !connection.isOpen()) {
            connection = factory.newConnection("leasebox");
        }
        return connection;
    }

    private Channel channel() {
        Channel channel = channels.get();
        if (channel != null && channel.isOpen()) {
            return channel;
        }
        try {
            channel = connection().createChannel();
            channel.exchangeDeclarePassive(exchange);
            channel.confirmSelect();
            channels.set(channel);
            return channel;
        } catch (IOException | TimeoutException e) {
            throw new IllegalStateException("rabbitmq provider: cannot publish to " + description + ": "
                    + rootMessage(e) + " (is the broker running, and does the exchange exist?)", e);
        }
    }

    private static String rootMessage(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null) {
            root = root.getCause();
        }
        return root.getMessage() == null ? root.toString() : root.getMessage();
    }

    @Override
    public ProviderOutcome emit(Envelope envelope) throws InterruptedException {
        Channel channel;
        try {
            channel = channel();
        } catch (IllegalStateException e) {
            return ProviderOutcome.retryable(e.getMessage());
        }
        Map<String, Object> headers = new HashMap<>(envelope.headers());
        envelope.fence().ifPresent(fence -> headers.put("leasebox-fence", fence));
        headers.put("leasebox-entry-id", envelope.entryId());
        AMQP.BasicProperties properties = new AMQP.BasicProperties.Builder()
                .messageId(envelope.idempotencyKey())
                .type(envelope.type())
                .deliveryMode(2)
                .headers(headers)
                .build();
        ReturnCatcher returns = new ReturnCatcher();
        channel.addReturnListener(returns);
        try {
            channel.basicPublish(exchange, envelope.type(), true, properties, envelope.payload());
            channel.waitForConfirmsOrDie(confirmTimeout.toMillis());
        } catch (IOException e) {
            return ProviderOutcome.retryable("rabbitmq: broker refused or lost the message: " + rootMessage(e));
        } catch (TimeoutException e) {
            return ProviderOutcome.retryable("rabbitmq: no confirm within " + confirmTimeout);
        } finally {
            channel.removeReturnListener(returns);
        }
        if (returns.returned) {
            return ProviderOutcome.permanent("rabbitmq: exchange " + exchange + " routed nothing for key " + envelope.type());
        }
        return ProviderOutcome.delivered("confirmed by " + factory.getHost());
    }

    private static final class ReturnCatcher implements com.rabbitmq.client.ReturnListener {
        private volatile boolean returned;

        @Override
        public void handleReturn(int replyCode, String replyText, String exchange, String routingKey,
                                 AMQP.BasicProperties properties, byte[] body) {
            returned = true;
        }
    }

    @Override
    public synchronized void close() {
        if (connection != null && connection.isOpen()) {
            try {
                connection.close();
            } catch (IOException e) {
                // closing a broken connection: nothing left to release
            }
        }
    }

    @Override
    public String toString() {
        return description;
    }
}
