package dev.leasebox.provider;

import com.sun.net.httpserver.HttpServer;
import dev.leasebox.outbox.OutboxClaim;
import dev.leasebox.outbox.OutboxEntry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/** The http provider against a real HTTP server on loopback: headers sent, statuses mapped to outcomes. */
class HttpProviderTest {

    private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

    private HttpServer server;
    private final AtomicInteger status = new AtomicInteger(200);
    private final AtomicReference<String> retryAfter = new AtomicReference<>();
    private final List<Map<String, List<String>>> received = new CopyOnWriteArrayList<>();

    @BeforeEach
    void startServer() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/in", exchange -> {
            received.add(Map.copyOf(exchange.getRequestHeaders()));
            exchange.getRequestBody().readAllBytes();
            if (retryAfter.get() != null) {
                exchange.getResponseHeaders().add("Retry-After", retryAfter.get());
            }
            exchange.sendResponseHeaders(status.get(), -1);
            exchange.close();
        });
        server.start();
    }

    @AfterEach
    void stopServer() {
        server.stop(0);
    }

    private ProviderOutcome emit() throws InterruptedException {
        HttpProvider provider = new HttpProvider(URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/in"),
                Duration.ofSeconds(5), Clock.fixed(NOW, ZoneOffset.UTC));
        OutboxEntry entry = OutboxEntry.builder().id(7).idempotencyKey("key-7").type("order.placed")
                .payload("{}".getBytes()).headers(Map.of("tenant", "acme")).createdAt(NOW).build();
        return provider.emit(Envelope.forClaim(new OutboxClaim(entry.toBuilder().claim("w1", 42, NOW, NOW.plusSeconds(30), 1).build(),
                "w1", 42, NOW, NOW.plusSeconds(30), 1)));
    }

    @Test
    void a2xxIsDeliveredAndCarriesTheIdempotencyKeyAndFence() throws InterruptedException {
        assertThat(emit()).isInstanceOf(ProviderOutcome.Delivered.class);
        Map<String, List<String>> headers = received.get(0);
        assertThat(headers.get("Idempotency-key")).containsExactly("key-7");
        assertThat(headers.get("Leasebox-fence")).containsExactly("42");
        assertThat(headers.get("Leasebox-entry-id")).containsExactly("7");
        assertThat(headers.get("Leasebox-header-tenant")).containsExactly("acme");
    }

    @Test
    void a429IsDeferredUntilRetryAfterSeconds() throws InterruptedException {
        status.set(429);
        retryAfter.set("120");
        assertThat(emit()).isEqualTo(ProviderOutcome.deferredUntil(NOW.plusSeconds(120), "HTTP 429"));
    }

    @Test
    void a503WithAnHttpDateIsDeferredUntilThatDate() throws InterruptedException {
        status.set(503);
        retryAfter.set("Thu, 01 Jan 2026 00:05:00 GMT");
        assertThat(emit()).isEqualTo(ProviderOutcome.deferredUntil(NOW.plusSeconds(300), "HTTP 503"));
    }

    @Test
    void otherServerErrorsAreRetryableAndClientErrorsPermanent() throws InterruptedException {
        status.set(500);
        assertThat(emit()).isInstanceOf(ProviderOutcome.RetryableError.class);
        status.set(404);
        assertThat(emit()).isInstanceOf(ProviderOutcome.PermanentError.class);
    }

    @Test
    void anUnreachableEndpointIsRetryable() throws InterruptedException {
        server.stop(0);
        assertThat(emit()).isInstanceOf(ProviderOutcome.RetryableError.class);
    }

    @Test
    void statusRulesWithoutANetwork() {
        assertThat(HttpProvider.outcomeOf(204, Optional.empty(), NOW)).isInstanceOf(ProviderOutcome.Delivered.class);
        assertThat(HttpProvider.outcomeOf(429, Optional.empty(), NOW))
                .isEqualTo(ProviderOutcome.deferredUntil(NOW.plusSeconds(30), "HTTP 429"));
        assertThat(HttpProvider.outcomeOf(301, Optional.empty(), NOW)).isInstanceOf(ProviderOutcome.PermanentError.class);
    }
}
