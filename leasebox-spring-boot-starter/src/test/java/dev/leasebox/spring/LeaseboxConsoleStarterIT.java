package dev.leasebox.spring;

import dev.leasebox.console.ConsoleSampler;
import dev.leasebox.jdbc.LeaseboxSchema;
import dev.leasebox.outbox.OutboxMessage;
import dev.leasebox.provider.OutboxProvider;
import dev.leasebox.provider.ProviderOutcome;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The console mounted by the starter in a running servlet application (embedded Tomcat) on the real
 * PostgreSQL: the page at /leasebox shows the drain's dead letter, a confirmed same-origin redrive gets
 * it delivered, and leasebox.console.enabled=false leaves the page out.
 */
class LeaseboxConsoleStarterIT {

    private static final Duration PATIENCE = Duration.ofSeconds(30);

    private String table;
    private final Set<String> delivered = ConcurrentHashMap.newKeySet();
    private volatile boolean healed;
    private final HttpClient http = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build();

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class Application {
    }

    @BeforeEach
    void createTable() throws Exception {
        table = TestTables.outbox(LeaseboxSchema.LATEST_VERSION);
    }

    @AfterEach
    void dropTable() throws Exception {
        TestTables.dropOutbox(table);
    }

    private ConfigurableApplicationContext start(String... extra) {
        OutboxProvider provider = envelope -> {
            if (envelope.type().equals("poison") && !healed) {
                return ProviderOutcome.permanent("downstream refused " + envelope.idempotencyKey());
            }
            delivered.add(envelope.idempotencyKey());
            return ProviderOutcome.delivered();
        };
        return new SpringApplicationBuilder(Application.class)
                .initializers(context -> {
                    context.getBeanFactory().registerSingleton("provider", provider);
                    // Micrometer, as an application with the Actuator has it: the console shows the drain's takeover count
                    context.getBeanFactory().registerSingleton("meterRegistry", new io.micrometer.core.instrument.simple.SimpleMeterRegistry());
                })
                .properties("server.port=0", "server.address=127.0.0.1", "spring.datasource.url=" + TestTables.JDBC_URL,
                        "leasebox.table=" + table, "leasebox.console.sample-every=200ms", "spring.main.banner-mode=off")
                .properties(extra).run();
    }

    @Test
    void thePageShowsTheDeadLetterAndAConfirmedRedriveDeliversIt() throws Exception {
        try (ConfigurableApplicationContext app = start()) {
            String base = "http://127.0.0.1:" + app.getEnvironment().getProperty("local.server.port");
            TransactionalOutbox outbox = app.getBean(TransactionalOutbox.class);
            outbox.enqueue(OutboxMessage.of("order", bytes("1")).withIdempotencyKey("order-1"));
            outbox.enqueue(OutboxMessage.of("poison", bytes("2")).withIdempotencyKey("poison-1"));
            await().atMost(PATIENCE).until(() -> get(base + "/leasebox/live").body()
                    .contains("id=\"dead-letter-count\">1<"));

            HttpResponse<String> bare = get(base + "/leasebox");
            assertThat(bare.statusCode()).isEqualTo(303);
            assertThat(bare.headers().firstValue("Location")).hasValue("/leasebox/");
            String page = get(base + "/leasebox/").body();
            assertThat(page).contains("<title>Leasebox console: " + table + "</title>").contains("downstream refused poison-1");
            assertThat(get(base + "/leasebox/live").body()).as("the drain's own count of claims taken over")
                    .contains("id=\"taken-over\">0<");
            String token = page.replaceAll("(?s).*name=\"token\" value=\"([0-9a-f]+)\".*", "$1");
            String id = page.replaceAll("(?s).*<tr id=\"dl-([0-9]+)\">.*", "$1");

            HttpResponse<String> confirm = post(base + "/leasebox/redrive", "target=" + id + "&token=" + token, base);
            assertThat(confirm.statusCode()).isEqualTo(200);
            assertThat(confirm.body()).contains("Redrive dead letter #" + id + "?").contains("1 entry goes back to PENDING");
            HttpResponse<String> foreign = post(base + "/leasebox/redrive-confirm", "target=" + id + "&token=" + token,
                    "http://elsewhere.example");
            assertThat(foreign.statusCode()).isEqualTo(403);

            healed = true;
            HttpResponse<String> done = post(base + "/leasebox/redrive-confirm", "target=" + id + "&token=" + token, base);
            assertThat(done.statusCode()).isEqualTo(303);
            assertThat(done.headers().firstValue("Location")).hasValue("/leasebox/?redriven=1&held=0");
            await().atMost(PATIENCE).until(() -> delivered.contains("poison-1"));
            assertThat(get(base + "/leasebox/?redriven=1&held=0").body()).contains("Redrove 1 entry to PENDING.");
        }
    }

    @Test
    void switchedOffThereIsNoPage() throws Exception {
        try (ConfigurableApplicationContext app = start("leasebox.console.enabled=false")) {
            String base = "http://127.0.0.1:" + app.getEnvironment().getProperty("local.server.port");
            assertThat(app.getBeansOfType(ConsoleSampler.class)).isEmpty();
            assertThat(get(base + "/leasebox/").statusCode()).isEqualTo(404);
        }
    }

    private HttpResponse<String> get(String url) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> post(String url, String form, String origin) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(url)).header("Content-Type", "application/x-www-form-urlencoded")
                .header("Origin", origin).POST(HttpRequest.BodyPublishers.ofString(form)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
