package dev.leasebox.console;

import dev.leasebox.drain.DrainOptions;
import dev.leasebox.provider.ProviderOutcome;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.chrome.ChromeDriver;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;

import static dev.leasebox.console.HeadlessChromium.number;
import static dev.leasebox.console.HeadlessChromium.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The console in a real headless Chromium against a live drain on the real PostgreSQL: the numbers move
 * as the drain delivers, dead letters show with their errors, and a redrive through the page (with its
 * confirmation) gets the entry delivered. The POST guards are checked without a browser.
 */
class ConsoleIT {

    private static final Duration PATIENCE = Duration.ofSeconds(30);

    private LiveOutbox outbox;
    private final Set<String> delivered = ConcurrentHashMap.newKeySet();
    private volatile boolean downstreamHealed;

    @BeforeEach
    void liveDrainAndConsole() {
        outbox = new LiveOutbox();
        outbox.startDrain(DrainOptions.builder().owner("it-worker-1").concurrency(2).batchSize(20), envelope -> {
            if (envelope.type().equals("poison") && !downstreamHealed) {
                return ProviderOutcome.permanent("downstream refused " + envelope.idempotencyKey() + ": schema v0");
            }
            delivered.add(envelope.idempotencyKey());
            return ProviderOutcome.delivered();
        }, UnaryOperator.identity());
    }

    @AfterEach
    void stop() {
        outbox.close();
    }

    @Test
    void theNumbersMoveAndARedriveThroughThePageIsDelivered() throws Exception {
        ChromeDriver browser = HeadlessChromium.start();
        try {
            browser.get(outbox.url());
            assertThat(browser.getTitle()).contains(outbox.table.qualified());
            outbox.enqueue("order", 0, 60);
            outbox.enqueue("poison", 0, 3);
            // the page refreshes itself: the figures come from the drain's progress, not from reloading
            await().atMost(PATIENCE).until(() -> number(browser, "delivered-total") == 60);
            await().atMost(PATIENCE).until(() -> number(browser, "dead-letter-count") == 3);
            assertThat(number(browser, "backlog")).isZero();
            assertThat(text(browser, "dead-letters")).contains("downstream refused poison-1: schema v0");
            outbox.enqueue("order", 60, 40);
            await().atMost(PATIENCE).until(() -> number(browser, "delivered-total") == 100);
            assertThat(text(browser, "count-DELIVERED")).isEqualTo("100");

            long poisonId = outbox.idOf("poison-2");
            downstreamHealed = true;
            browser.findElement(By.id("redrive-" + poisonId)).click();
            await().atMost(PATIENCE).until(() -> !browser.findElements(By.id("confirm-redrive")).isEmpty());
            assertThat(text(browser, "confirm")).contains("Redrive dead letter #" + poisonId + "?")
                    .contains("1 entry goes back to PENDING");
            assertThat(outbox.statusOf(poisonId)).as("nothing changes before the confirmation").isEqualTo("DEAD_LETTERED");
            browser.findElement(By.id("confirm-redrive")).click();
            await().atMost(PATIENCE).until(() -> delivered.contains("poison-2"));
            assertThat(text(browser, "flash")).isEqualTo("Redrove 1 entry to PENDING.");
            await().atMost(PATIENCE).until(() -> number(browser, "dead-letter-count") == 2
                    && number(browser, "delivered-total") == 101);
            assertThat(outbox.statusOf(poisonId)).isEqualTo("DELIVERED");
            assertThat(delivered).doesNotContain("poison-1", "poison-3");
        } finally {
            browser.quit();
        }
    }

    @Test
    void aPostWithoutTheTokenOrFromAnotherOriginChangesNothing() throws Exception {
        outbox.enqueue("poison", 0, 1);
        await().atMost(PATIENCE).until(() -> "DEAD_LETTERED".equals(outbox.statusOf(outbox.idOf("poison-1"))));
        HttpClient http = HttpClient.newHttpClient();
        String origin = outbox.url().substring(0, outbox.url().length() - 1);
        URI confirm = URI.create(outbox.url() + "redrive-confirm");
        // the page offers a redrive (and so carries the form token) once the console has sampled the dead letter
        String page = await().atMost(PATIENCE).until(() -> http.send(HttpRequest.newBuilder(URI.create(outbox.url())).build(),
                HttpResponse.BodyHandlers.ofString()).body(), body -> body.contains("name=\"token\""));
        String token = page.replaceAll("(?s).*name=\"token\" value=\"([0-9a-f]+)\".*", "$1");
        assertThat(token).hasSize(32);

        HttpResponse<String> noToken = post(http, confirm, "target=all", origin);
        HttpResponse<String> foreign = post(http, confirm, "target=all&token=" + token, "http://evil.example");
        HttpResponse<String> noOrigin = http.send(HttpRequest.newBuilder(confirm)
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString("target=all&token=" + token)).build(), HttpResponse.BodyHandlers.ofString());
        HttpResponse<String> get = http.send(HttpRequest.newBuilder(confirm).build(), HttpResponse.BodyHandlers.ofString());

        assertThat(noToken.statusCode()).isEqualTo(403);
        assertThat(noToken.body()).contains("form token");
        assertThat(foreign.statusCode()).isEqualTo(403);
        assertThat(foreign.body()).contains("evil.example");
        assertThat(noOrigin.statusCode()).isEqualTo(403);
        assertThat(get.statusCode()).isEqualTo(405);
        assertThat(outbox.statusOf(outbox.idOf("poison-1"))).isEqualTo("DEAD_LETTERED");

        HttpResponse<String> same = post(http, confirm, "target=all&token=" + token, origin);
        assertThat(same.statusCode()).isEqualTo(303);
        assertThat(same.headers().firstValue("Location")).hasValue("/?redriven=1&held=0");
    }

    private static HttpResponse<String> post(HttpClient http, URI uri, String form, String origin) throws Exception {
        return http.send(HttpRequest.newBuilder(uri).header("Content-Type", "application/x-www-form-urlencoded")
                .header("Origin", origin).POST(HttpRequest.BodyPublishers.ofString(form)).build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
