package dev.leasebox.spring;

import dev.leasebox.jdbc.LeaseboxSchema;
import dev.leasebox.outbox.OutboxMessage;
import dev.leasebox.provider.OutboxProvider;
import dev.leasebox.provider.ProviderOutcome;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A provider that keeps failing is logged as the CLI's worker reports it, against the real PostgreSQL: its first
 * failure at once with the provider's message, the failures after it summed up, not a line per attempt.
 */
@ExtendWith(OutputCaptureExtension.class)
class LeaseboxProviderFailuresIT {

    private static final Pattern FIRST = Pattern.compile("provider failed \\(entry \\d+, attempt 1\\): receiver down");
    private static final Pattern SUMMED = Pattern.compile("provider still failing: (\\d+) more failed attempts?, (\\d+) dead-lettered");

    private String table;
    private final AtomicInteger attempts = new AtomicInteger();
    private final OutboxProvider failing = envelope -> {
        attempts.incrementAndGet();
        return ProviderOutcome.retryable("receiver down");
    };

    @BeforeEach
    void createTable() {
        table = TestTables.outbox(LeaseboxSchema.LATEST_VERSION);
    }

    @AfterEach
    void dropTable() throws Exception {
        TestTables.dropOutbox(table);
    }

    @Test
    void aFailingProviderIsLoggedOnceThenSummedUp(CapturedOutput output) {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class, LeaseboxAutoConfiguration.class))
                .withBean(OutboxProvider.class, () -> failing)
                .withPropertyValues("spring.datasource.url=" + TestTables.JDBC_URL, "leasebox.table=" + table,
                        "leasebox.max-attempts=3", "leasebox.backoff.initial=1ms", "leasebox.backoff.max=5ms")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    TransactionalOutbox outbox = context.getBean(TransactionalOutbox.class);
                    for (int i = 0; i < 5; i++) {
                        outbox.enqueue(OutboxMessage.of("event", ("e-" + i).getBytes(StandardCharsets.UTF_8)).withIdempotencyKey("e-" + i));
                    }
                    await().atMost(Duration.ofSeconds(30)).until(() -> TestTables.count("SELECT count(*) FROM " + table
                            + " WHERE status = 'DEAD_LETTERED'") == 5);
                    await().atMost(Duration.ofSeconds(10)).until(() -> FIRST.matcher(output.getOut()).find());
                });
        // the context is closed: what the interval held back is reported
        String out = output.getOut();
        assertThat(attempts.get()).isEqualTo(15);
        assertThat(count(FIRST, out)).as("one line for the first failure").isEqualTo(1);
        assertThat(out).contains("Leasebox " + table + ": provider failed (entry ");
        long summedFailures = 0;
        long summedDeadLetters = 0;
        Matcher summed = SUMMED.matcher(out);
        while (summed.find()) {
            summedFailures += Long.parseLong(summed.group(1));
            summedDeadLetters += Long.parseLong(summed.group(2));
        }
        assertThat(summedFailures).as("every later failure summed up").isEqualTo(14);
        assertThat(summedDeadLetters).isEqualTo(5);
        assertThat(count(Pattern.compile("receiver down"), out)).as("not a line per attempt").isLessThan(5);
    }

    private static int count(Pattern pattern, String text) {
        int n = 0;
        Matcher m = pattern.matcher(text);
        while (m.find()) {
            n++;
        }
        return n;
    }
}
