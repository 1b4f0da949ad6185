package example.springboot;

import dev.leasebox.jdbc.LeaseboxSchema;
import dev.leasebox.spring.LeaseboxDrain;
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
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The same service with {@code leasebox.backend=database}: rows are claimed in the outbox table itself, with no
 * coordinator, against the real PostgreSQL of this machine.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@DirtiesContext(classMode = DirtiesContext.ClassMode.AFTER_CLASS)
class OrdersOnDatabaseLeasesIT {

    private static final ExampleRun RUN = new ExampleRun("sb_example_db");

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        RUN.properties(registry, "database");
    }

    /** Drops the run's tables when the context closes: after the drain has stopped, before the pool closes. */
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

    @LocalServerPort
    int port;

    @AfterAll
    static void stopReceiver() {
        RUN.stopReceiver();
    }

    @Test
    void manyOrdersAreDeliveredOnceEachThroughClaimsInTheTable() {
        for (int i = 0; i < 40; i++) {
            orders.placeOrder("E-" + i, "customer-" + (i % 4), 100 + i);
        }
        await().atMost(Duration.ofSeconds(60)).until(() -> jdbc.queryForObject(
                "SELECT count(*) FROM " + RUN.outbox + " WHERE idempotency_key LIKE 'order-E-%' AND status = 'DELIVERED'",
                Long.class) == 40);
        for (int i = 0; i < 40; i++) {
            assertThat(RUN.deliveries.get("order-E-" + i)).as("POSTs of order-E-" + i).isEqualTo(1);
        }
        assertThat(drain.leaseManager()).as("no coordinator").isEmpty();
        assertThat(drain.leasebox().orElseThrow().describe()).doesNotContainIgnoringCase("redis");
    }

    @Test
    void theLeaseboxHealthComponentIsUpWithTheDatabaseAsCoordinator() {
        await().atMost(Duration.ofSeconds(30)).until(() -> ExampleRun.leaseboxHealth(port).statusCode() == 200);
        String health = await().atMost(Duration.ofSeconds(5)).until(() -> ExampleRun.leaseboxHealth(port).body(),
                body -> body.contains("\"status\":\"UP\""));
        assertThat(health).contains("\"coordinator\":\"database\"")
                .contains("\"schemaVersion\":" + LeaseboxSchema.LATEST_VERSION)
                .contains("\"table\":\"" + RUN.outbox + "\"");
    }
}
