package dev.leasebox.jdbc;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.leasebox.jdbc.lease.JdbcLeaseManager;
import dev.leasebox.lease.LeaseRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Leases held in a MariaDB table. Raising the fence floor warns only when the fence sequence really was
 * behind: MariaDB's SETVAL(seq, n) answers n, unchanged, when n is the last fence handed out, which is the
 * usual case at a worker's start (the highest fence the outbox recorded is the last one granted). A key
 * longer than the lease_key column is refused, never stored cut short.
 */
class MariaDbLeaseTableIT {

    @RegisterExtension
    static final MariaDbDatabase DB = new MariaDbDatabase(2);

    @Test
    void aFloorTheSequenceAlreadyReachedRaisesNothingAndWarnsNothing() {
        TableName table = TestTables.fresh(DB.ds(), DatabaseKind.MARIADB, DB.name());
        Logger logger = (Logger) LoggerFactory.getLogger(JdbcLeaseManager.class);
        ListAppender<ILoggingEvent> appender = new ListAppender<>();
        appender.start();
        logger.addAppender(appender);
        try (JdbcLeaseManager manager = JdbcLeaseManager.builder(DB.ds()).table(table).open()) {
            long last = manager.acquire(new LeaseRequest(List.of("a"), "w", Duration.ofSeconds(30))).get(0).fence();

            assertThat(manager.raiseFenceFloor(last)).isTrue();
            assertThat(manager.raiseFenceFloor(last - 1)).isTrue();
            assertThat(warnings(appender)).as("the sequence was at or past the floor").isEmpty();

            assertThat(manager.raiseFenceFloor(last + 100)).isTrue();
            assertThat(warnings(appender)).as("the sequence was behind").singleElement().asString()
                    .contains("above " + (last + 100));
            assertThat(manager.raiseFenceFloor(last + 100)).isTrue();
            assertThat(warnings(appender)).as("raised already: no second warning").hasSize(1);
            assertThat(manager.acquire(new LeaseRequest(List.of("b"), "w", Duration.ofSeconds(30))).get(0).fence())
                    .isEqualTo(last + 101);
        } finally {
            logger.detachAppender(appender);
        }
    }

    @Test
    void aKeyLongerThanTheColumnIsRefusedWithTheLimitNotCutShort() {
        TableName table = TestTables.fresh(DB.ds(), DatabaseKind.MARIADB, DB.name());
        String longKey = "k".repeat(700) + " ";
        try (JdbcLeaseManager manager = JdbcLeaseManager.builder(DB.ds()).table(table).open()) {
            assertThatThrownBy(() -> manager.acquire(new LeaseRequest(List.of(longKey), "w", Duration.ofSeconds(30))))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("701 characters").hasMessageContaining("700").hasMessageNotContaining("\n");
            assertThat(manager.acquire(new LeaseRequest(List.of("k".repeat(700)), "w", Duration.ofSeconds(30))))
                    .as("a key of 700 characters fits").hasSize(1);
        }
    }

    private static List<String> warnings(ListAppender<ILoggingEvent> appender) {
        return appender.list.stream().map(ILoggingEvent::getFormattedMessage)
                .filter(m -> m.startsWith("Raised the fence sequence")).toList();
    }
}
