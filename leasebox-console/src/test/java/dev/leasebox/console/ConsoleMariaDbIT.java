package dev.leasebox.console;

import dev.leasebox.Leasebox;
import dev.leasebox.drain.DrainOptions;
import dev.leasebox.jdbc.DatabaseKind;
import dev.leasebox.jdbc.LeaseboxSchema;
import dev.leasebox.jdbc.MariaDbDatabase;
import dev.leasebox.jdbc.OutboxWriter;
import dev.leasebox.jdbc.TableName;
import dev.leasebox.outbox.OutboxMessage;
import dev.leasebox.provider.ProviderOutcome;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The console's queries on the real MariaDB, whose DATETIME columns hold UTC without a zone: a live
 * drain's dead letter shows, its oldest pending age is not hours off, and a redrive gets it delivered.
 */
class ConsoleMariaDbIT {

    @RegisterExtension
    static final MariaDbDatabase DB = new MariaDbDatabase(6);

    @Test
    void aDeadLetterShowsAndARedriveDeliversIt() {
        TableName table = new TableName(DB.name(), "console_outbox");
        new LeaseboxSchema(DatabaseKind.MARIADB, table).applyAll(DB.ds());
        OutboxWriter writer = OutboxWriter.of(table, Clock.systemUTC());
        Set<String> delivered = ConcurrentHashMap.newKeySet();
        AtomicBoolean healed = new AtomicBoolean();
        try (ConsoleSampler sampler = ConsoleSampler.start(DB.ds(), table, Duration.ofMillis(200), 50);
             Leasebox drain = Leasebox.drain(DB.ds()).table(table)
                     .options(DrainOptions.builder().idlePolling(Duration.ofMillis(20), Duration.ofMillis(100)).build())
                     .provider(e -> {
                         if (e.type().equals("poison") && !healed.get()) {
                             return ProviderOutcome.permanent("refused " + e.idempotencyKey());
                         }
                         delivered.add(e.idempotencyKey());
                         return ProviderOutcome.delivered();
                     }).build()) {
            Console console = new Console(DB.ds(), sampler);
            sampler.sampleNow();
            writer.enqueue(DB.ds(), OutboxMessage.of("order", bytes("1")).withIdempotencyKey("order-1"));
            long poison = writer.enqueue(DB.ds(), OutboxMessage.of("poison", bytes("2")).withIdempotencyKey("poison-1")).id();
            sampler.sampleNow();
            assertThat(sampler.latest().orElseThrow().oldestPendingAge().orElseThrow())
                    .as("created moments ago, read as UTC").isLessThan(Duration.ofMinutes(1));
            drain.start();
            await().atMost(Duration.ofSeconds(30)).until(() -> sampler.latest().orElseThrow().count("DEAD_LETTERED") == 1
                    && sampler.latest().orElseThrow().count("DELIVERED") == 1);
            String page = console.handle(request("GET", "/", Map.of())).body();
            assertThat(page).contains("refused poison-1").contains("id=\"dl-" + poison + "\"");

            healed.set(true);
            ConsoleResponse done = console.handle(request("POST", "/redrive-confirm",
                    Map.of("target", String.valueOf(poison), "token", console.token())));
            assertThat(done.status()).isEqualTo(303);
            await().atMost(Duration.ofSeconds(30)).until(() -> delivered.contains("poison-1"));
        }
    }

    private static ConsoleRequest request(String method, String path, Map<String, String> form) {
        return new ConsoleRequest(method, "", path, Map.of(), form, "127.0.0.1:8089", Optional.of("http://127.0.0.1:8089"),
                Optional.empty());
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
