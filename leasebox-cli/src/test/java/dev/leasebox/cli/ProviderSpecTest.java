package dev.leasebox.cli;

import dev.leasebox.provider.ProviderSpec;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The library's provider-spec parser against the providers on the CLI's class path, spelled as the worker's flag. */
class ProviderSpecTest {

    private static ProviderSpec parse(String spec) {
        return ProviderSpec.parse(spec, shown -> "--provider " + shown);
    }

    private static String kindAndTarget(ProviderSpec spec) {
        return spec.kind() + " | " + spec.target();
    }

    @Test
    void parsesEveryKind() {
        assertThat(kindAndTarget(parse("log"))).isEqualTo("log | ");
        assertThat(kindAndTarget(parse("noop"))).isEqualTo("noop | ");
        assertThat(parse("jdbc-inbox:jdbc:postgresql://h/db?a=b"))
                .extracting(ProviderSpec::target).isEqualTo("jdbc:postgresql://h/db?a=b");
        assertThat(kindAndTarget(parse("http:http://127.0.0.1:8080/in"))).isEqualTo("http | http://127.0.0.1:8080/in");
        assertThat(parse("rabbitmq:amqp://g:g@127.0.0.1:5672/events").target()).isEqualTo("amqp://g:g@127.0.0.1:5672/events");
        assertThat(kindAndTarget(parse("kafka:127.0.0.1:9092/orders"))).isEqualTo("kafka | 127.0.0.1:9092/orders");
    }

    @Test
    void refusesUnknownKindsMissingTargetsAndStrayTargets() {
        assertThatThrownBy(() -> parse("nosuch:x")).hasMessageStartingWith("--provider nosuch:x names no provider on the class path")
                .hasMessageContaining("--provider").hasMessageContaining("http:URL").hasMessageContaining("rabbitmq:amqp://")
                .hasMessageContaining("kafka:BOOTSTRAP/TOPIC");
        assertThatThrownBy(() -> parse("kafka:orders")).hasMessageStartingWith("--provider kafka:orders: ")
                .hasMessageContaining("use kafka:BOOTSTRAP/TOPIC");
        assertThatThrownBy(() -> parse("http:")).hasMessage("--provider http: needs a target: http:URL");
        assertThatThrownBy(() -> parse("log:x")).hasMessage("--provider log:x: provider 'log' takes no target");
    }

    @Test
    void aProviderJarOnTheClassPathIsFoundByItsName() {
        // registered by this module's test resources, as a user's own provider jar would register it
        assertThat(kindAndTarget(parse("echo:anything"))).isEqualTo("echo | anything");
        assertThat(parse("echo:anything").open(java.time.Clock.systemUTC(), url -> null)).isNotNull();
    }
}
