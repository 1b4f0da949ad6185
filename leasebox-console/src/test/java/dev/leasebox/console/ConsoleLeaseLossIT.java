package dev.leasebox.console;

import dev.leasebox.drain.DrainOptions;
import dev.leasebox.metrics.DrainMetrics;
import dev.leasebox.provider.OutboxProvider;
import dev.leasebox.provider.ProviderOutcome;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.chrome.ChromeDriver;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static dev.leasebox.console.HeadlessChromium.number;
import static dev.leasebox.console.HeadlessChromium.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A worker freezes holding a claim: the page shows the claim under its owner, then past its expiry (a lease
 * loss), then taken by the healthy worker under a new token (a reclaim, and one claim taken over by the healthy
 * worker's own count), and the entry delivered. The page with that history is saved as target/console.png
 * (docs/console.png is a copy).
 */
class ConsoleLeaseLossIT {

    private static final Duration PATIENCE = Duration.ofSeconds(30);

    private LiveOutbox outbox;
    private final CountDownLatch thawed = new CountDownLatch(1);
    private final CountDownLatch healthyMayFinish = new CountDownLatch(1);
    private final Map<String, Integer> emissions = new ConcurrentHashMap<>();

    @BeforeEach
    void console() {
        outbox = new LiveOutbox();
    }

    @AfterEach
    void stop() {
        thawed.countDown();
        healthyMayFinish.countDown();
        outbox.close();
    }

    @Test
    void aFrozenWorkersClaimShowsAsALossThenAReclaim() throws Exception {
        ChromeDriver browser = HeadlessChromium.start();
        DrainMetrics healthyMetrics = new DrainMetrics(new SimpleMeterRegistry());
        outbox.countTakeovers(healthyMetrics::takenOverTotal);
        try {
            browser.get(outbox.url());
            outbox.startDrain(DrainOptions.builder().owner("worker-frozen").leaseDuration(Duration.ofSeconds(1))
                    .renewalInterval(Duration.ofMillis(300)).claimSafetyMargin(Duration.ofMillis(100)),
                    gated(thawed, "slow"), store -> new FrozenRenewals(store, thawed));
            outbox.enqueue("slow", 0, 1);
            await().atMost(PATIENCE).until(() -> text(browser, "claims-by-owner").contains("worker-frozen"));
            // the frozen worker neither renews nor completes: its claim outlives its expiry on the row
            await().atMost(PATIENCE).until(() -> number(browser, "losses") == 1);
            assertThat(text(browser, "claims-by-owner")).containsPattern("worker-frozen\\s+0\\s+1");

            outbox.startDrain(b -> b.listener(healthyMetrics).provider(gated(healthyMayFinish, "slow"))
                    .options(DrainOptions.builder().owner("worker-healthy").concurrency(2).batchSize(10)
                            .idlePolling(Duration.ofMillis(20), Duration.ofMillis(100)).build()));
            await().atMost(PATIENCE).until(() -> number(browser, "reclaims") == 1);
            // the healthy worker counted the expired claim it claimed over as it claimed it
            await().atMost(PATIENCE).until(() -> number(browser, "taken-over") == 1);
            assertThat(text(browser, "claims-by-owner")).containsPattern("worker-healthy\\s+1\\s+0")
                    .doesNotContain("worker-frozen");

            outbox.enqueue("order", 0, 120);
            outbox.enqueue("poison", 0, 2);
            await().atMost(PATIENCE).until(() -> number(browser, "delivered-total") == 120
                    && number(browser, "dead-letter-count") == 2);
            screenshot(browser);

            healthyMayFinish.countDown();
            await().atMost(PATIENCE).until(() -> "DELIVERED".equals(outbox.statusOf(outbox.idOf("slow-1"))));
            thawed.countDown();
            await().atMost(PATIENCE).until(() -> number(browser, "delivered-total") == 121);
            assertThat(number(browser, "losses")).isEqualTo(1);
            assertThat(number(browser, "reclaims")).isEqualTo(1);
            assertThat(number(browser, "taken-over")).isEqualTo(1);
            // both holders emitted the entry whose lease expired under the first; every other entry went once
            assertThat(emissions).containsEntry("slow-1", 2);
            assertThat(emissions).hasSize(123);
            emissions.forEach((key, times) -> assertThat(times).as(key).isEqualTo(key.equals("slow-1") ? 2 : 1));
        } finally {
            browser.quit();
        }
    }

    /** Delivers, dead-letters type poison, and holds entries of {@code heldType} until {@code release}. */
    private OutboxProvider gated(CountDownLatch release, String heldType) {
        return envelope -> {
            emissions.merge(envelope.idempotencyKey(), 1, Integer::sum);
            if (envelope.type().equals(heldType) && !release.await(60, TimeUnit.SECONDS)) {
                return ProviderOutcome.retryable("held too long");
            }
            if (envelope.type().equals("poison")) {
                return ProviderOutcome.permanent("downstream refused " + envelope.idempotencyKey() + ": unknown type");
            }
            return ProviderOutcome.delivered();
        };
    }

    private static void screenshot(ChromeDriver browser) throws Exception {
        Path shot = browser.getScreenshotAs(OutputType.FILE).toPath();
        Path target = Path.of("target", "console.png");
        Files.createDirectories(target.getParent());
        Files.copy(shot, target, StandardCopyOption.REPLACE_EXISTING);
    }
}
