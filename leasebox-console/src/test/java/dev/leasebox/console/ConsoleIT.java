package dev.leasebox.console;

import com.zaxxer.hikari.HikariDataSource;
import dev.leasebox.Leasebox;
import dev.leasebox.drain.DrainOptions;
import dev.leasebox.drain.ProviderOutcome;
import dev.leasebox.jdbc.DatabaseKind;
import dev.leasebox.jdbc.LeaseboxSchema;
import dev.leasebox.jdbc.OutboxWriter;
import dev.leasebox.jdbc.PostgreSqlTestServer;
import dev.leasebox.jdbc.TableName;
import dev.leasebox.outbox.OutboxMessage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.chrome.ChromeDriver;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The console in a real headless Chromium against a live drain on the real PostgreSQL: the numbers move
 * as the drain delivers, dead letters show with their errors, and a redrive through the page (with its
 * confirmation) gets the entry delivered. The POST guards are checked without a browser.
 */
class ConsoleIT {

    private static final Duration PATIENCE = Duration.ofSeconds(30);

    private HikariDataSource dataSource;
    private String schema;
    private TableName table;
    private OutboxWriter writer;
    private Leasebox drain;
    private ConsoleSampler sampler;
    private ConsoleHttpServer server;
    private final Set<String> delivered = ConcurrentHashMap.newKeySet();
    private volatile boolean downstreamHealed;

    @BeforeEach
    void liveDrainAndConsole() {
        dataSource = PostgreSqlTestServer.dataSource(6);
        schema = PostgreSqlTestServer.newSchema(dataSource);
        table = new TableName(schema, "outbox");
        new LeaseboxSchema(DatabaseKind.POSTGRESQL, table).applyAll(dataSource);
        writer = OutboxWriter.of(DatabaseKind.POSTGRESQL, table, Clock.systemUTC());
        drain = Leasebox.drain(dataSource).table(table)
                .options(DrainOptions.builder().owner("it-worker-1").concurrency(2).batchSize(20)
                        .idlePolling(Duration.ofMillis(20), Duration.ofMillis(100)).build())
                .provider(envelope -> {
                    if (envelope.type().equals("poison") && !downstreamHealed) {
                        return ProviderOutcome.permanent("downstream refused " + envelope.idempotencyKey() + ": schema v0");
                    }
                    delivered.add(envelope.idempotencyKey());
                    return ProviderOutcome.delivered();
                }).build();
        drain.start();
        sampler = ConsoleSampler.start(dataSource, table, Duration.ofMillis(200), 300);
        server = ConsoleHttpServer.start(new Console(dataSource, sampler), "127.0.0.1", 0);
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
        if (sampler != null) {
            sampler.close();
        }
        if (drain != null) {
            drain.close();
        }
        PostgreSqlTestServer.dropSchema(dataSource, schema);
        dataSource.close();
    }

    @Test
    void theNumbersMoveAndARedriveThroughThePageIsDelivered() throws Exception {
        String url = "http://127.0.0.1:" + server.port() + "/";
        ChromeDriver browser = HeadlessChromium.start();
        try {
            browser.get(url);
            assertThat(browser.getTitle()).contains(table.qualified());
            enqueue("order", 60);
            enqueue("poison", 3);
            // the page refreshes itself: the figures come from the drain's progress, not from reloading
            await().atMost(PATIENCE).until(() -> number(browser, "delivered-total") == 60);
            await().atMost(PATIENCE).until(() -> number(browser, "dead-letter-count") == 3);
            assertThat(number(browser, "backlog")).isZero();
            assertThat(text(browser, "dead-letters")).contains("downstream refused poison-1: schema v0");
            enqueue("order", 40, 60);
            await().atMost(PATIENCE).until(() -> number(browser, "delivered-total") == 100);
            assertThat(text(browser, "count-DELIVERED")).isEqualTo("100");

            long poisonId = idOf("poison-2");
            downstreamHealed = true;
            browser.findElement(By.id("redrive-" + poisonId)).click();
            await().atMost(PATIENCE).until(() -> !browser.findElements(By.id("confirm-redrive")).isEmpty());
            assertThat(browser.findElement(By.id("confirm")).getText()).contains("Redrive dead letter #" + poisonId + "?")
                    .contains("1 entry goes back to PENDING");
            assertThat(statusOf(poisonId)).as("nothing changes before the confirmation").isEqualTo("DEAD_LETTERED");
            browser.findElement(By.id("confirm-redrive")).click();
            await().atMost(PATIENCE).until(() -> delivered.contains("poison-2"));
            assertThat(browser.findElement(By.id("flash")).getText()).isEqualTo("Redrove 1 entry to PENDING.");
            await().atMost(PATIENCE).until(() -> number(browser, "dead-letter-count") == 2
                    && number(browser, "delivered-total") == 101);
            assertThat(statusOf(poisonId)).isEqualTo("DELIVERED");
            assertThat(delivered).doesNotContain("poison-1", "poison-3");
            screenshot(browser);
        } finally {
            browser.quit();
        }
    }

    @Test
    void aPostWithoutTheTokenOrFromAnotherOriginChangesNothing() throws Exception {
        enqueue("poison", 1);
        await().atMost(PATIENCE).until(() -> "DEAD_LETTERED".equals(statusOf(idOf("poison-1"))));
        HttpClient http = HttpClient.newHttpClient();
        URI confirm = URI.create("http://127.0.0.1:" + server.port() + "/redrive-confirm");
        String page = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/")).build(),
                HttpResponse.BodyHandlers.ofString()).body();
        String token = page.replaceAll("(?s).*name=\"token\" value=\"([0-9a-f]+)\".*", "$1");
        assertThat(token).hasSize(32);

        HttpResponse<String> noToken = post(http, confirm, "target=all", "http://127.0.0.1:" + server.port());
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
        assertThat(statusOf(idOf("poison-1"))).isEqualTo("DEAD_LETTERED");

        HttpResponse<String> same = post(http, confirm, "target=all&token=" + token, "http://127.0.0.1:" + server.port());
        assertThat(same.statusCode()).isEqualTo(303);
        assertThat(same.headers().firstValue("Location")).hasValue("/?redriven=1&held=0");
    }

    private static HttpResponse<String> post(HttpClient http, URI uri, String form, String origin) throws Exception {
        return http.send(HttpRequest.newBuilder(uri).header("Content-Type", "application/x-www-form-urlencoded")
                .header("Origin", origin).POST(HttpRequest.BodyPublishers.ofString(form)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private void enqueue(String type, int count) {
        enqueue(type, count, 0);
    }

    private void enqueue(String type, int count, int from) {
        IntStream.range(from, from + count).forEach(i -> writer.enqueue(dataSource, OutboxMessage.of(type,
                ("{\"n\":" + i + "}").getBytes(StandardCharsets.UTF_8)).withIdempotencyKey(type + "-" + (i + 1))));
    }

    /** The figure the page shows in element {@code id}, thousands separators removed; -1 while it shows none. */
    private static long number(ChromeDriver browser, String id) {
        // read in one script: the page replaces its live part while Selenium would hold an element of it
        Object text = browser.executeScript("var e = document.getElementById(arguments[0]); return e ? e.textContent : null;", id);
        String figure = text == null ? "" : text.toString().replace(",", "").replace("/s", "");
        return figure.matches("[0-9]+") ? Long.parseLong(figure) : -1;
    }

    private static String text(ChromeDriver browser, String id) {
        Object text = browser.executeScript("var e = document.getElementById(arguments[0]); return e ? e.innerText : '';", id);
        return String.valueOf(text);
    }

    private long idOf(String key) throws Exception {
        return Long.parseLong(column("SELECT id FROM " + table.qualified() + " WHERE idempotency_key = ?", key));
    }

    private String statusOf(long id) throws Exception {
        return column("SELECT status FROM " + table.qualified() + " WHERE id = ?", id);
    }

    private String column(String sql, Object parameter) throws Exception {
        try (Connection c = dataSource.getConnection(); PreparedStatement st = c.prepareStatement(sql)) {
            st.setObject(1, parameter);
            try (ResultSet rs = st.executeQuery()) {
                return rs.next() ? rs.getString(1) : null;
            }
        }
    }

    private static void screenshot(ChromeDriver browser) throws Exception {
        Path shot = browser.getScreenshotAs(OutputType.FILE).toPath();
        Path target = Path.of("target", "console.png");
        Files.createDirectories(target.getParent());
        Files.copy(shot, target, StandardCopyOption.REPLACE_EXISTING);
    }
}
