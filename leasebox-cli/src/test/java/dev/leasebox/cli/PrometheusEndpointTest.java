package dev.leasebox.cli;

import dev.leasebox.metrics.DrainMetrics;
import dev.leasebox.metrics.MeteredLeaseManager;

import dev.leasebox.lease.LeaseRequest;
import dev.leasebox.lease.inmemory.InMemoryLeaseManager;
import dev.leasebox.outbox.Completion;
import dev.leasebox.outbox.CompletionOutcome;
import dev.leasebox.outbox.EmissionResult;
import dev.leasebox.outbox.OutboxEntry;
import dev.leasebox.provider.Envelope;
import dev.leasebox.provider.ProviderOutcome;
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

    @Test
    void theSurplusOfAnOverAskIsNotARefusal() {
        MutableClock clock = MutableClock.startingAt2026();
        try (PrometheusEndpoint endpoint = new PrometheusEndpoint("127.0.0.1", 0);
             InMemoryLeaseManager coordinator = new InMemoryLeaseManager(clock)) {
            MeteredLeaseManager leases = new MeteredLeaseManager(coordinator, endpoint.registry());
            // one worker asks twice its batch of free keys: it gets its batch, and nobody refused it anything
            leases.acquire(new LeaseRequest(List.of("a", "b", "c", "d"), "w1", Duration.ofSeconds(10)).limitedTo(2));
            assertThat(endpoint.registry().scrape()).contains("leasebox_leases_total{event=\"granted\"} 2.0")
                    .contains("leasebox_leases_total{event=\"refused\"} 0.0");
            // another wants three of the same keys and finds a and b taken: it gets c and d, one short of what it wanted
            leases.acquire(new LeaseRequest(List.of("a", "b", "c", "d"), "w2", Duration.ofSeconds(10)).limitedTo(3));
            assertThat(endpoint.registry().scrape()).contains("leasebox_leases_total{event=\"granted\"} 4.0")
                    .contains("leasebox_leases_total{event=\"refused\"} 1.0");
        }
    }

    @Test
    void everyMeterExplainsItselfInItsHelpLine() {
        MutableClock clock = MutableClock.startingAt2026();
        try (PrometheusEndpoint endpoint = new PrometheusEndpoint("127.0.0.1", 0);
             InMemoryLeaseManager coordinator = new InMemoryLeaseManager(clock)) {
            MeteredLeaseManager leases = new MeteredLeaseManager(coordinator, endpoint.registry());
            leases.acquire(new LeaseRequest(List.of("a"), "w1", Duration.ofSeconds(10)));
            leases.renew(leases.acquire(new LeaseRequest(List.of("b"), "w1", Duration.ofSeconds(10))));
            DrainMetrics drain = new DrainMetrics(endpoint.registry());
            Instant now = clock.instant();
            OutboxEntry entry = OutboxEntry.builder().id(1).idempotencyKey("k").type("t").createdAt(now).build();
            drain.emitted(Envelope.forUnclaimed(entry, "w1"), ProviderOutcome.retryable("503"), Duration.ofMillis(3));
            drain.completionRefused(1, new Completion.Delivered(EmissionResult.at(now)),
                    new CompletionOutcome.Reclaimed(7, entry));
            drain.deadLettered(1, "attempts exhausted");
            String scrape = endpoint.registry().scrape();
            assertThat(scrape.lines().filter(l -> l.startsWith("# HELP ")).toList()).hasSizeGreaterThan(8)
                    .allSatisfy(help -> assertThat(help).as("a HELP line with text").matches("# HELP \\S+ \\S.*"));
        }
    }
}
