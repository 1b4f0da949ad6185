package dev.leasebox.kafka;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class KafkaTargetTest {

    @Test
    void parsesOneOrSeveralBootstrapServersAndTheTopic() {
        assertThat(KafkaTarget.parse("127.0.0.1:9092/orders")).isEqualTo(new KafkaTarget("127.0.0.1:9092", "orders"));
        assertThat(KafkaTarget.parse("a:9092, b:9093/orders.v2")).isEqualTo(new KafkaTarget("a:9092,b:9093", "orders.v2"));
    }

    @Test
    void aMalformedTargetFailsWithOneLineNamingTheForm() {
        assertThatThrownBy(() -> KafkaTarget.parse("127.0.0.1:9092")).hasMessageContaining("names no topic")
                .hasMessageContaining("kafka:BOOTSTRAP/TOPIC").hasMessageContaining("kafka:127.0.0.1:9092/orders");
        assertThatThrownBy(() -> KafkaTarget.parse("127.0.0.1:9092/")).hasMessageContaining("names no topic");
        assertThatThrownBy(() -> KafkaTarget.parse("/orders")).hasMessageContaining("names no bootstrap server");
        assertThatThrownBy(() -> KafkaTarget.parse("localhost/orders")).hasMessageContaining("'localhost' is not HOST:PORT");
        assertThatThrownBy(() -> KafkaTarget.parse("localhost:99999/orders")).hasMessageContaining("has no valid port");
        assertThatThrownBy(() -> KafkaTarget.parse("h:9092/or ders")).hasMessageContaining("not a legal Kafka topic name");
        assertThatThrownBy(() -> KafkaTarget.parse("h:9092/orders\nx")).message().doesNotContain("\n");
    }

    @Test
    void theFactoryChecksTheFormWithoutConnecting() {
        KafkaProviderFactory factory = new KafkaProviderFactory();
        assertThat(factory.name()).isEqualTo("kafka");
        assertThat(factory.targetFormat()).isEqualTo("BOOTSTRAP/TOPIC");
        factory.check("127.0.0.1:1/orders"); // nothing listens there: the check opens nothing
        assertThatThrownBy(() -> factory.check("127.0.0.1:9092")).hasMessageContaining("names no topic");
    }
}
