package example.springboot;

import dev.leasebox.jdbc.LeaseboxSchema;
import com.sun.net.httpserver.HttpServer;
import dev.leasebox.spring.LeaseboxDrain;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthEndpoint;
import org.springframework.boot.actuate.health.Status;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import redis.clients.jedis.RedisClient;

import javax.sql.DataSource;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The example service as it runs: the real PostgreSQL and Redis of this machine, and an HTTP receiver
 * (the JDK's server on a free loopback port) as the drain's target. Tables and the Redis namespace are
 * unique to the run and dropped when the context closes.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@DirtiesContext(classMode = DirtiesContext.ClassMode.AFTER_CLASS)
class OrdersApplicationIT {

    private static final String RUN = randomHex();
    private static final String ORDERS = "sb_example_orders_" + RUN;
    private static final String OUTBOX = "sb_example_outbox_" + RUN;
    private static final String NAMESPACE = "example-" + RUN;
    private static final String REDIS_URI = System.getenv().getOrDefault("REDIS_URL", "redis://127.0.0.1:6379");

    /** Request bodies received, by Idempotency-Key. */
    private static final Map<String, String> RECEIVED = new ConcurrentHashMap<>();
    private static final Map<String, String> CONTENT_TYPES = new ConcurrentHashMap<>();
    private static final Map<String, Integer> DELIVERIES = new ConcurrentHashMap<>();
    private static final HttpServer RECEIVER = startReceiver();

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        registry.add("spring.datasource.url", () -> System.getenv().getOrDefault("LEASEBOX_JDBC_URL",
                "jdbc:postgresql://127.0.0.1:5432/test?user=postgres"));
        registry.add("leasebox.redis.uri", () -> REDIS_URI);
        registry.add("leasebox.provider", () -> "http:http://127.0.0.1:" + RECEIVER.getAddress().getPort() + "/events");
        registry.add("example.orders-table", () -> ORDERS);
        registry.add("leasebox.table", () -> OUTBOX);
        registry.add("leasebox.namespace", () -> NAMESPACE);
    }

    /**
     * Drops the run's tables and Redis keys when the context closes: after the drain has stopped, before the
     * pool closes.
     */
    @TestConfiguration
    static class DropTablesOnClose {
        @Bean
        DisposableBean dropExampleTables(DataSource dataSource) {
            return () -> {
                JdbcTemplate jdbc = new JdbcTemplate(dataSource);
                jdbc.execute("DROP TABLE IF EXISTS " + ORDERS + ", " + OUTBOX + ", " + OUTBOX + "_claim_styles, "
                        + OUTBOX + "_lease_slots, " + OUTBOX + "_workers, " + OUTBOX + "_leases CASCADE");
                jdbc.execute("DROP SEQUENCE IF EXISTS " + OUTBOX + "_claim_token_seq, " + OUTBOX + "_lease_fence_seq");
                // the namespace's fence counter outlives the leases
                try (RedisClient redis = RedisClient.create(URI.create(REDIS_URI))) {
                    Set<String> keys = redis.keys(NAMESPACE + ":*");
                    if (!keys.isEmpty()) {
                        redis.del(keys.toArray(String[]::new));
                    }
                }
            };
        }
    }

    @Autowired
    OrderService orders;

    @Autowired
    JdbcTemplate jdbc;

    @Autowired
    LeaseboxDrain drain;

    @Autowired
    HealthEndpoint health;

    @Autowired
    MeterRegistry meters;

    @LocalServerPort
    int port;

    @AfterAll
    static void stopReceiver() {
        RECEIVER.stop(0);
    }

    @Test
    void anOrderAndItsEventCommitTogetherAndTheEventReachesTheEndpoint() {
        orders.placeOrder("A-1", "alice", 1250);

        assertThat(jdbc.queryForObject("SELECT count(*) FROM " + ORDERS + " WHERE id = 'A-1'", Long.class)).isEqualTo(1);
        await().atMost(Duration.ofSeconds(30)).until(() -> RECEIVED.containsKey("order-A-1"));
        assertThat(RECEIVED.get("order-A-1")).isEqualTo("{\"order\":\"A-1\",\"customer\":\"alice\",\"amountCents\":1250}");
        assertThat(CONTENT_TYPES.get("order-A-1")).isEqualTo("application/json");
        await().atMost(Duration.ofSeconds(30)).until(() -> "DELIVERED".equals(jdbc.queryForObject(
                "SELECT status FROM " + OUTBOX + " WHERE idempotency_key = 'order-A-1'", String.class)));
    }

    @Test
    void aRefusedOrderLeavesNeitherTheOrderNorItsEvent() {
        assertThatThrownBy(() -> orders.placeOrder("B-1", "bob", 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("the amount must be positive");

        assertThat(jdbc.queryForObject("SELECT count(*) FROM " + ORDERS + " WHERE id = 'B-1'", Long.class)).isZero();
        assertThat(jdbc.queryForObject("SELECT count(*) FROM " + OUTBOX + " WHERE idempotency_key = 'order-B-1'", Long.class))
                .isZero();
        // an order placed after it is delivered; the refused one never is
        orders.placeOrder("B-2", "bob", 990);
        await().atMost(Duration.ofSeconds(30)).until(() -> RECEIVED.containsKey("order-B-2"));
        assertThat(RECEIVED).doesNotContainKey("order-B-1");
    }

    @Test
    void manyOrdersAreDeliveredOnceEachThroughRedisLeases() {
        for (int i = 0; i < 40; i++) {
            orders.placeOrder("C-" + i, "customer-" + (i % 4), 100 + i);
        }
        await().atMost(Duration.ofSeconds(60)).until(() -> jdbc.queryForObject(
                "SELECT count(*) FROM " + OUTBOX + " WHERE idempotency_key LIKE 'order-C-%' AND status = 'DELIVERED'",
                Long.class) == 40);
        for (int i = 0; i < 40; i++) {
            assertThat(DELIVERIES.get("order-C-" + i)).as("POSTs of order-C-" + i).isEqualTo(1);
        }
        assertThat(drain.leaseManager()).isPresent();
        assertThat(drain.leaseManager().get().describe()).containsIgnoringCase("redis");
        assertThat(meters.get("leasebox.emissions").tag("outcome", "delivered").counter().count())
                .as("the drain counts into the Actuator's registry").isGreaterThanOrEqualTo(40);
        assertThat(meters.get("leasebox.leases").tag("event", "granted").counter().count()).isGreaterThanOrEqualTo(40);
        assertThat(meters.find("leasebox.oldest.pending.age.seconds").gauge()).isNotNull();
    }

    @Test
    void theLeaseboxHealthComponentIsUp() {
        await().atMost(Duration.ofSeconds(30)).until(() -> ((Health) health.healthForPath("leasebox")).getStatus() == Status.UP);
        Health leasebox = (Health) health.healthForPath("leasebox");
        assertThat(leasebox.getDetails()).containsEntry("coordinatorReachable", true).containsEntry("schemaVersion", LeaseboxSchema.LATEST_VERSION)
                .containsEntry("table", OUTBOX);
    }

    @Test
    void theOperatorsPageShowsTheOutbox() throws Exception {
        orders.placeOrder("D-1", "dora", 500);
        await().atMost(Duration.ofSeconds(30)).until(() -> RECEIVED.containsKey("order-D-1"));
        HttpClient http = HttpClient.newHttpClient();
        await().atMost(Duration.ofSeconds(30)).until(() -> http.send(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + port + "/leasebox/live")).build(), HttpResponse.BodyHandlers.ofString())
                .body().matches("(?s).*id=\"count-DELIVERED\">[1-9][0-9,]*<.*"));
        HttpResponse<String> page = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/leasebox/"))
                .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.body()).contains("<title>Leasebox console: " + OUTBOX + "</title>");
    }

    private static HttpServer startReceiver() {
        try {
            HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
            server.createContext("/events", exchange -> {
                String key = exchange.getRequestHeaders().getFirst("Idempotency-Key");
                String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
                if (key != null) {
                    RECEIVED.put(key, body);
                    DELIVERIES.merge(key, 1, Integer::sum);
                    CONTENT_TYPES.put(key, String.valueOf(exchange.getRequestHeaders().getFirst("Content-Type")));
                }
                exchange.sendResponseHeaders(key == null ? 400 : 204, -1);
                exchange.close();
            });
            server.start();
            return server;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String randomHex() {
        byte[] random = new byte[4];
        ThreadLocalRandom.current().nextBytes(random);
        return HexFormat.of().formatHex(random);
    }
}
