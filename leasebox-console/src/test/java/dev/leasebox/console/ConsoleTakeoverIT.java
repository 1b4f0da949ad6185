package dev.leasebox.console;

import dev.leasebox.drain.DrainOptions;
import dev.leasebox.jdbc.PostgreSqlTestServer;
import dev.leasebox.lease.redis.RedisLeaseConfig;
import dev.leasebox.lease.redis.RedisLeaseManager;
import dev.leasebox.metrics.DrainMetrics;
import dev.leasebox.provider.OutboxProvider;
import dev.leasebox.provider.ProviderOutcome;
import dev.leasebox.testkit.LoopbackPorts;
import dev.leasebox.testkit.RequiredServer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.chrome.ChromeDriver;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

import static dev.leasebox.console.HeadlessChromium.number;
import static dev.leasebox.console.HeadlessChromium.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The report this answers: two Redis workers, one killed with SIGKILL holding 20 claims, duplicates at the
 * receiver, and the console still showing no lease loss. Here a worker JVM claims 20 entries through Redis
 * row leases and is killed holding them; the healthy worker takes them over once their leases expire, counts
 * each as it claims it, and the page shows 20 claims taken over (decision 0040), whatever the table sampling
 * saw of them: given the worker's count, and, as {@code leasebox console} runs, from the count the worker adds
 * to the table (V8, decision 0046).
 */
class ConsoleTakeoverIT {

    private static final Duration PATIENCE = Duration.ofSeconds(60);
    private static final int HELD = 20;

    private final LiveOutbox outbox = new LiveOutbox();
    private final String namespace = "console-takeover-" + UUID.randomUUID();
    private Process doomed;
    private RedisLeaseManager leases;

    @AfterEach
    void stop() {
        if (doomed != null) {
            doomed.destroyForcibly();
        }
        outbox.close();
        if (leases != null) {
            leases.close();
        }
    }

    @Test
    void aWorkerKilledHoldingClaimsShowsAsClaimsTakenOver() throws Exception {
        String redis = redisUri();
        DrainMetrics healthyMetrics = new DrainMetrics(new SimpleMeterRegistry());
        outbox.countTakeovers(healthyMetrics::takenOverTotal);
        Map<String, Integer> deliveredByHealthy = new ConcurrentHashMap<>();
        ChromeDriver browser = HeadlessChromium.start();
        try {
            browser.get(outbox.url());
            outbox.enqueue("order", 0, HELD);
            doomed = startWorker(redis, "worker-doomed");
            await().atMost(PATIENCE).until(() -> text(browser, "claims-by-owner").matches("(?s).*worker-doomed\\s+" + HELD + "\\s+0.*"));
            assertThat(number(browser, "taken-over")).isZero();

            doomed.destroyForcibly(); // SIGKILL: no completion, release or renewal; the claims stay on their rows
            doomed.waitFor();

            startHealthyWorker(redis, healthyMetrics, envelope -> {
                deliveredByHealthy.merge(envelope.idempotencyKey(), 1, Integer::sum);
                return ProviderOutcome.delivered();
            });
            await().atMost(PATIENCE).until(() -> number(browser, "taken-over") == HELD);
            await().atMost(PATIENCE).until(() -> number(browser, "delivered-total") == HELD);
            assertThat(healthyMetrics.takenOverTotal()).isEqualTo(HELD);
            assertThat(deliveredByHealthy).hasSize(HELD).allSatisfy((key, times) -> assertThat(times).isEqualTo(1));
            assertThat(text(browser, "losses-section")).contains("taken over");
        } finally {
            browser.quit();
        }
    }

    /**
     * The console as {@code leasebox console} runs it, reading only the table (no {@code takeoversFrom}); its page read
     * over HTTP, so that no browser is needed.
     */
    @Test
    void aConsoleReadingOnlyTheTableShowsTheClaimsTakenOverFromAWorkerKilledHoldingThem() throws Exception {
        String redis = redisUri();
        DrainMetrics healthyMetrics = new DrainMetrics(new SimpleMeterRegistry());
        outbox.enqueue("order", 0, HELD);
        doomed = startWorker(redis, "worker-doomed");
        await().atMost(PATIENCE).until(() -> live().matches("(?s).*<td>worker-doomed</td><td class=\"n\">" + HELD + "<.*"));
        assertThat(live()).contains("id=\"taken-over\">0<");

        doomed.destroyForcibly(); // SIGKILL: no completion, release or renewal; the claims stay on their rows
        doomed.waitFor();

        startHealthyWorker(redis, healthyMetrics, envelope -> ProviderOutcome.delivered());
        await().atMost(PATIENCE).until(() -> live().contains("id=\"taken-over\">" + HELD + "<"));
        assertThat(healthyMetrics.takenOverTotal()).isEqualTo(HELD);
        assertThat(live()).contains("the table's count").contains("&#9632;</span> taken over");
    }

    /** The worker that takes the killed one's claims over, in this JVM, on the same Redis namespace. */
    private void startHealthyWorker(String redis, DrainMetrics metrics, OutboxProvider provider) {
        leases = RedisLeaseManager.start(RedisLeaseConfig.builder().uri(redis).namespace(namespace).build());
        outbox.startDrain(b -> b.leases(leases).listener(metrics)
                .options(DrainOptions.builder().owner("worker-healthy").batchSize(50)
                        .idlePolling(Duration.ofMillis(20), Duration.ofMillis(100)).build())
                .provider(provider));
    }

    /** The refreshing part of the console's page. */
    private String live() throws Exception {
        HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(outbox.url() + "live"))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return response.body();
    }

    /** The worker JVM: this test's class path, {@link ClaimHoldingWorker} as its main class, 2 s leases. */
    private Process startWorker(String redis, String owner) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = List.of(java, "-cp", System.getProperty("java.class.path"),
                ClaimHoldingWorker.class.getName(), PostgreSqlTestServer.jdbcUrlFor(outbox.schema),
                outbox.table.qualified(), redis, namespace, owner, Integer.toString(HELD), "2000");
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        Thread echo = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                in.lines().forEach(line -> System.out.println("[" + owner + "] " + line));
            } catch (java.io.IOException | java.io.UncheckedIOException killed) {
                // its output ends with the process
            }
        }, "echo-" + owner);
        echo.setDaemon(true);
        echo.start();
        return process;
    }

    private static String redisUri() {
        return RequiredServer.fromEnvironment("REDIS_URL").orElseGet(() -> {
            if (!LoopbackPorts.isListening(6379)) {
                throw new IllegalStateException("Redis is not listening on 127.0.0.1:6379: start redis-server, or name "
                        + "one with REDIS_URL");
            }
            return "redis://127.0.0.1:6379";
        });
    }
}
