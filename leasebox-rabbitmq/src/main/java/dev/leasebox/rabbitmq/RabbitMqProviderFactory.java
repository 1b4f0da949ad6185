package dev.leasebox.rabbitmq;

import dev.leasebox.provider.OutboxProvider;
import dev.leasebox.provider.ProviderFactory;

import java.time.Duration;

/** {@code rabbitmq:amqp://USER:PASS@HOST:PORT[/VHOST]/EXCHANGE}: publishes each entry with publisher confirms. */
public final class RabbitMqProviderFactory implements ProviderFactory {

    @Override
    public String name() {
        return "rabbitmq";
    }

    @Override
    public String targetFormat() {
        return "amqp://USER:PASS@HOST:PORT[/VHOST]/EXCHANGE";
    }

    @Override
    public OutboxProvider open(String target, Context context) {
        return new RabbitMqProvider(target, Duration.ofSeconds(10));
    }
}
