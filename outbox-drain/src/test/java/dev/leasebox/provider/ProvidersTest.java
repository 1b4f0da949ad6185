package dev.leasebox.provider;

import dev.leasebox.outbox.OutboxEntry;
import dev.leasebox.outbox.OutboxMessage;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ProvidersTest {

    private static Envelope envelopeOf(OutboxMessage message) {
        OutboxEntry entry = OutboxEntry.builder().id(1).idempotencyKey(message.idempotencyKey()).type(message.type())
                .payload(message.payload()).createdAt(Instant.EPOCH).build();
        return Envelope.forUnclaimed(entry, "w1");
    }

    @Test
    void aTextPayloadIsWrittenAndReadAsUtf8() {
        OutboxMessage message = OutboxMessage.of("order-placed", "{\"customer\":\"Zoë 東京\"}");
        assertThat(message.payload()).hasSize("{\"customer\":\"Zoë 東京\"}".getBytes(java.nio.charset.StandardCharsets.UTF_8).length);
        assertThat(envelopeOf(message).payloadText()).isEqualTo("{\"customer\":\"Zoë 東京\"}");
    }

    @Test
    void theBuiltInProvidersOpenFromJava() throws Exception {
        Envelope envelope = envelopeOf(OutboxMessage.of("t", "{}"));
        assertThat(Providers.noop().emit(envelope)).isEqualTo(ProviderOutcome.delivered());
        assertThat(Providers.log().emit(envelope)).isInstanceOf(ProviderOutcome.Delivered.class);
        assertThat(Providers.http(URI.create("http://127.0.0.1:1/events"))).isInstanceOf(HttpProvider.class);
        assertThatThrownBy(() -> Providers.http(URI.create("ftp://127.0.0.1/events")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("is not an http:// or https:// URL");
    }
}
