package dev.leasebox.metrics;

import dev.leasebox.outbox.Completion;
import dev.leasebox.outbox.CompletionOutcome;
import dev.leasebox.outbox.EmissionStatus;
import dev.leasebox.outbox.OutboxEntry;
import dev.leasebox.provider.ProviderOutcome;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

class DrainMetricsTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final DrainMetrics metrics = new DrainMetrics(registry);

    private double emissions(String outcome) {
        return registry.get("leasebox.emissions").tag("outcome", outcome).counter().count();
    }

    @Test
    void emissionsAreCountedByOutcome() {
        metrics.emitted(null, ProviderOutcome.delivered(), Duration.ofMillis(2));
        metrics.emitted(null, ProviderOutcome.delivered(), Duration.ofMillis(3));
        metrics.emitted(null, ProviderOutcome.deferredUntil(Instant.EPOCH, "later"), Duration.ofMillis(1));
        metrics.emitted(null, ProviderOutcome.retryable("503"), Duration.ofMillis(1));
        metrics.emitted(null, ProviderOutcome.permanent("400"), Duration.ofMillis(1));

        assertThat(emissions("delivered")).isEqualTo(2.0);
        assertThat(emissions("deferred")).isEqualTo(1.0);
        assertThat(emissions("retryable_error")).isEqualTo(1.0);
        assertThat(emissions("permanent_error")).isEqualTo(1.0);
        assertThat(metrics.emittedTotal()).isEqualTo(5);
        assertThat(metrics.failedTotal()).isEqualTo(2);
        assertThat(registry.get("leasebox.emit.latency").timer().count()).isEqualTo(5);
    }

    private static final OutboxEntry ROW = OutboxEntry.builder().id(1).idempotencyKey("k").type("t").payload(new byte[] {1})
            .status(EmissionStatus.DELIVERED).createdAt(Instant.EPOCH).build();

    @Test
    void refusalsAreCountedInAllAndByTheStoresReason() {
        metrics.completionRefused(1, new Completion.Released("test"), new CompletionOutcome.StaleToken(3, ROW));
        metrics.completionRefused(2, new Completion.Released("test"), new CompletionOutcome.StaleToken(4, ROW));
        metrics.completionRefused(3, new Completion.Released("test"), new CompletionOutcome.AlreadyTerminal(5, ROW));

        assertThat(registry.get("leasebox.completions.refused").counter().count()).isEqualTo(3.0);
        assertThat(registry.get("leasebox.completions.refused.by.reason").tag("reason", "StaleToken").counter().count())
                .isEqualTo(2.0);
        assertThat(registry.get("leasebox.completions.refused.by.reason").tag("reason", "AlreadyTerminal").counter().count())
                .isEqualTo(1.0);
        assertThat(metrics.refusedTotal()).isEqualTo(3);
    }

    @Test
    void takeoversAreCountedAsAClaimEvent() {
        metrics.claimsTakenOver(java.util.Set.of(1L, 2L, 3L));
        metrics.claimsTakenOver(java.util.Set.of(9L));

        assertThat(registry.get("leasebox.claims").tag("event", "taken_over").counter().count()).isEqualTo(4.0);
        assertThat(registry.get("leasebox.claims").tag("event", "lost").counter().count()).isZero();
        assertThat(metrics.takenOverTotal()).isEqualTo(4);
    }
}
