package dev.leasebox.kafka;

import dev.leasebox.provider.OutboxProvider;
import dev.leasebox.provider.ProviderFactory;

import java.time.Duration;

/** {@code kafka:BOOTSTRAP/TOPIC}: sends each entry with an idempotent producer, keyed by its partition key. */
public final class KafkaProviderFactory implements ProviderFactory {

    @Override
    public String name() {
        return "kafka";
    }

    @Override
    public String targetFormat() {
        return KafkaTarget.FORMAT;
    }

    @Override
    public void check(String target) {
        KafkaClientsVersion.requireSupported(KafkaProviderFactory.class.getClassLoader());
        KafkaTarget.parse(target);
    }

    @Override
    public OutboxProvider open(String target, Context context) {
        return KafkaProvider.open(KafkaTarget.parse(target), Duration.ofSeconds(10));
    }
}
