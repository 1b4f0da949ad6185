package dev.leasebox.metrics;

import dev.leasebox.drain.Envelope;
import dev.leasebox.drain.ProviderOutcome;
import dev.leasebox.lease.LeaseRequest;
import dev.leasebox.lease.inmemory.InMemoryLeaseManager;
import dev.leasebox.outbox.Completion;
import dev.leasebox.outbox.CompletionOutcome;
import dev.leasebox.outbox.EmissionResult;
import dev.leasebox.outbox.OutboxEntry;
import dev.leasebox.testkit.MutableClock;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** What a worker's --metrics-port serves: the drain's and the lease manager's meters, scraped over HTTP. */
class PrometheusEndpointTest {

    @Test
    void servesLeaseAndDrainMetersOnMetrics() throws Exception {
        MutableClock clock = MutableClock.startingAt2026();
        try (PrometheusEndpoint endpoint = new PrometheusEndpoint("127.0.0.1", 0);
             InMemoryLeaseManager coordinator = new InMemoryLeaseManager(clock)) {
            MeteredLeaseManager leases = new MeteredLeaseManager(coordinator, endpoint.registry());
            leases.acquire(new LeaseRequest(List.of("a", "b"), "w1", Duration.ofSeconds(10)));
            leases.acquire(new LeaseRequest(List.of("a", "c"), "w2", Duration.ofSeconds(10)));
            assertThat(leases.heldCount()).isEqualTo(3);

            DrainMetrics drain = new DrainMetrics(endpoint.registry());
            Instant now = clock.instant();
            OutboxEntry entry = OutboxEntry.builder().id(1).idempotencyKey("k").type("t").createdAt(now).build();
            drain.emitted(Envelope.forUnclaimed(entry, "w1"), ProviderOutcome.delivered(), Duration.ofMillis(3));
            drain.completionRefused(1, new Completion.Delivered(EmissionResult.at(now)),
                    new CompletionOutcome.Reclaimed(7, entry));

            HttpResponse<String> scrape = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + endpoint.port() + "/metrics")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(scrape.statusCode()).isEqualTo(200);
            assertThat(scrape.body())
                    .contains("leasebox_leases_total{event=\"granted\"} 3.0")
                    .contains("leasebox_leases_total{event=\"refused\"} 1.0")
                    .contains("leasebox_leases_held 3.0")
                    .contains("leasebox_emissions_total{outcome=\"delivered\"} 1.0")
                    .contains("leasebox_completions_refused_total 1.0")
                    .contains("leasebox_emit_latency_seconds_count 1");
            assertThat(drain.refusedTotal()).isEqualTo(1);
        }
    }
}
