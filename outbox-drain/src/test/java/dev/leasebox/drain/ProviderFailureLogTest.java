package dev.leasebox.drain;

import dev.leasebox.outbox.OutboxEntry;
import dev.leasebox.provider.Envelope;
import dev.leasebox.provider.ProviderOutcome;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/** A failing provider is heard, with its own words, but not once per entry. */
class ProviderFailureLogTest {

    private final List<String> lines = new ArrayList<>();
    private final AtomicLong nanos = new AtomicLong();
    private final ProviderFailureLog log = new ProviderFailureLog(lines::add, Duration.ofSeconds(10), nanos::get);

    private void fail(long id, String message) {
        OutboxEntry entry = OutboxEntry.builder().id(id).idempotencyKey("k" + id).type("t").createdAt(Instant.EPOCH).build();
        log.emitted(Envelope.forUnclaimed(entry, "w1"), ProviderOutcome.retryable(message), Duration.ofMillis(1));
    }

    @Test
    void theFirstFailureIsReportedAtOnceWithTheProvidersMessage() {
        fail(1, "POST http://127.0.0.1:9/nowhere failed: java.net.ConnectException");
        assertThat(lines).singleElement().asString().contains("provider failed").contains("entry 1")
                .contains("POST http://127.0.0.1:9/nowhere failed: java.net.ConnectException");
    }

    @Test
    void laterFailuresAreSummedUpOncePerInterval() {
        fail(1, "HTTP 503");
        for (long id = 2; id <= 1000; id++) {
            fail(id, "HTTP 503");
            log.deadLettered(id, "retryable error, attempts exhausted: HTTP 503");
        }
        assertThat(lines).hasSize(1);
        nanos.addAndGet(Duration.ofSeconds(10).toNanos());
        fail(1001, "HTTP 502");
        assertThat(lines).hasSize(2);
        assertThat(lines.get(1)).contains("1,000 more failed attempts").contains("999 dead-lettered").contains("HTTP 502");
    }

    @Test
    void deliveriesAreNotFailures() {
        OutboxEntry entry = OutboxEntry.builder().id(1).idempotencyKey("k").type("t").createdAt(Instant.EPOCH).build();
        log.emitted(Envelope.forUnclaimed(entry, "w1"), ProviderOutcome.delivered(), Duration.ofMillis(1));
        log.emitted(Envelope.forUnclaimed(entry, "w1"), ProviderOutcome.deferredUntil(Instant.EPOCH, "rate limit"), Duration.ofMillis(1));
        log.flush();
        assertThat(lines).isEmpty();
    }

    @Test
    void flushReportsWhatTheIntervalHeldBack() {
        fail(1, "HTTP 503");
        fail(2, "HTTP 503");
        log.deadLettered(2, "attempts exhausted");
        log.flush();
        assertThat(lines).hasSize(2);
        assertThat(lines.get(1)).contains("1 more failed attempt").contains("1 dead-lettered");
        log.flush();
        assertThat(lines).as("nothing new to report").hasSize(2);
    }
}
