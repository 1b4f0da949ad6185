package dev.leasebox.cli;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ProviderSpecTest {

    @Test
    void parsesEveryKind() {
        assertThat(ProviderSpec.parse("log")).isEqualTo(new ProviderSpec("log", ""));
        assertThat(ProviderSpec.parse("noop")).isEqualTo(new ProviderSpec("noop", ""));
        assertThat(ProviderSpec.parse("jdbc-inbox:jdbc:postgresql://h/db?a=b"))
                .isEqualTo(new ProviderSpec("jdbc-inbox", "jdbc:postgresql://h/db?a=b"));
        assertThat(ProviderSpec.parse("http:http://127.0.0.1:8080/in")).isEqualTo(new ProviderSpec("http", "http://127.0.0.1:8080/in"));
        assertThat(ProviderSpec.parse("rabbitmq:amqp://g:g@127.0.0.1:5672/events").target()).isEqualTo("amqp://g:g@127.0.0.1:5672/events");
        assertThat(ProviderSpec.parse("kafka:127.0.0.1:9092/orders")).isEqualTo(new ProviderSpec("kafka", "127.0.0.1:9092/orders"));
    }

    @Test
    void refusesUnknownKindsMissingTargetsAndStrayTargets() {
        assertThatThrownBy(() -> ProviderSpec.parse("nosuch:x")).hasMessageContaining("unknown provider 'nosuch:x'")
                .hasMessageContaining("--provider").hasMessageContaining("http:URL").hasMessageContaining("rabbitmq:amqp://")
                .hasMessageContaining("kafka:BOOTSTRAP/TOPIC");
        assertThatThrownBy(() -> ProviderSpec.parse("kafka:orders")).hasMessageStartingWith("--provider kafka:orders: ")
                .hasMessageContaining("use kafka:BOOTSTRAP/TOPIC");
        assertThatThrownBy(() -> ProviderSpec.parse("http:")).hasMessageContaining("provider 'http' needs a target");
        assertThatThrownBy(() -> ProviderSpec.parse("log:x")).hasMessageContaining("provider 'log' takes no target");
    }

    @Test
    void aProviderJarOnTheClassPathIsFoundByItsName() {
        // registered by this module's test resources, as a user's own provider jar would register it
        assertThat(ProviderSpec.parse("echo:anything")).isEqualTo(new ProviderSpec("echo", "anything"));
        assertThat(ProviderSpec.parse("echo:anything").open(java.time.Clock.systemUTC(), url -> null)).isNotNull();
    }
}
