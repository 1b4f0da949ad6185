package example.springboot;

import dev.leasebox.jdbc.LeaseboxSchema;
import dev.leasebox.spring.LeaseboxDrain;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import javax.sql.DataSource;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The example service as it runs, leasing rows from Redis: the real PostgreSQL and Redis of this machine, and an
 * HTTP receiver as the drain's target. Tables and the Redis namespace are unique to the run and dropped when the
 * context closes.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@DirtiesContext(classMode = DirtiesContext.ClassMode.AFTER_CLASS)
class OrdersApplicationIT {

    private static final ExampleRun RUN = new ExampleRun("sb_example");

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        RUN.properties(registry, "redis");
    }

    /** Drops the run's tables and Redis keys when the context closes: after the drain has stopped, before the pool closes. */
    @TestConfiguration
    static class DropTablesOnClose {
        @Bean
        DisposableBean dropExampleTables(DataSource dataSource) {
            return () -> RUN.drop(dataSource);
        }
    }

    @Autowired
    OrderService orders;

    @Autowired
    JdbcTemplate jdbc;

    @Autowired
    LeaseboxDrain drain;

    @Autowired
    MeterRegistry meters;

    @LocalServerPort
    int port;

    @AfterAll
    static void stopReceiver() {
        RUN.stopReceiver();
    }

    @Test
    void anOrderAndItsEventCommitTogetherAndTheEventReachesTheEndpoint() {
        orders.placeOrder("A-1", "alice", 1250);

        assertThat(jdbc.queryForObject("SELECT count(*) FROM " + RUN.orders + " WHERE id = 'A-1'", Long.class)).isEqualTo(1);
        await().atMost(Duration.ofSeconds(30)).until(() -> RUN.received.containsKey("order-A-1"));
        assertThat(RUN.received.get("order-A-1")).isEqualTo("{\"order\":\"A-1\",\"customer\":\"alice\",\"amountCents\":1250}");
        assertThat(RUN.contentTypes.get("order-A-1")).isEqualTo("application/json");
        await().atMost(Duration.ofSeconds(30)).until(() -> "DELIVERED".equals(jdbc.queryForObject(
                "SELECT status FROM " + RUN.outbox + " WHERE idempotency_key = 'order-A-1'", String.class)));
    }

    @Test
    void aRefusedOrderLeavesNeitherTheOrderNorItsEvent() {
        assertThatThrownBy(() -> orders.placeOrder("B-1", "bob", 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("the amount must be positive");

        assertThat(jdbc.queryForObject("SELECT count(*) FROM " + RUN.orders + " WHERE id = 'B-1'", Long.class)).isZero();
        assertThat(jdbc.queryForObject("SELECT count(*) FROM " + RUN.outbox + " WHERE idempotency_key = 'order-B-1'",
                Long.class)).isZero();
        // an order placed after it is delivered; the refused one never is
        orders.placeOrder("B-2", "bob", 990);
        await().atMost(Duration.ofSeconds(30)).until(() -> RUN.received.containsKey("order-B-2"));
        assertThat(RUN.received).doesNotContainKey("order-B-1");
    }

    @Test
    void manyOrdersAreDeliveredOnceEachThroughRedisLeases() {
        for (int i = 0; i < 40; i++) {
            orders.placeOrder("C-" + i, "customer-" + (i % 4), 100 + i);
        }
        await().atMost(Duration.ofSeconds(60)).until(() -> jdbc.queryForObject(
                "SELECT count(*) FROM " + RUN.outbox + " WHERE idempotency_key LIKE 'order-C-%' AND status = 'DELIVERED'",
                Long.class) == 40);
        for (int i = 0; i < 40; i++) {
            assertThat(RUN.deliveries.get("order-C-" + i)).as("POSTs of order-C-" + i).isEqualTo(1);
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
        await().atMost(Duration.ofSeconds(30)).until(() -> ExampleRun.leaseboxHealth(port).statusCode() == 200);
        String health = await().atMost(Duration.ofSeconds(5)).until(() -> ExampleRun.leaseboxHealth(port).body(),
                body -> body.contains("\"status\":\"UP\""));
        assertThat(health).contains("\"coordinatorReachable\":true")
                .contains("\"schemaVersion\":" + LeaseboxSchema.LATEST_VERSION)
                .contains("\"table\":\"" + RUN.outbox + "\"");
    }

    @Test
    void theOperatorsPageShowsTheOutbox() throws Exception {
        orders.placeOrder("D-1", "dora", 500);
        await().atMost(Duration.ofSeconds(30)).until(() -> RUN.received.containsKey("order-D-1"));
        HttpClient http = HttpClient.newHttpClient();
        await().atMost(Duration.ofSeconds(30)).until(() -> http.send(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + port + "/leasebox/live")).build(), HttpResponse.BodyHandlers.ofString())
                .body().matches("(?s).*id=\"count-DELIVERED\">[1-9][0-9,]*<.*"));
        HttpResponse<String> page = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/leasebox/"))
                .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.body()).contains("<title>Leasebox console: " + RUN.outbox + "</title>");
    }
}
