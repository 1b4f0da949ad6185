package dev.leasebox.lease.redis;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseManagerException;
import dev.leasebox.lease.LeaseRequest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A fresh namespace on a table whose fences came from elsewhere (another namespace, the database
 * backend) starts its counter above them: the log says so, without crying data loss. A counter that
 * existed below the table's fences went backwards: that is a warning.
 */
class RedisFenceFloorMessageIT {

    private static RedisTestServer redis;

    @BeforeAll
    static void startRedis() {
        redis = RedisTestServer.required();
    }

    @AfterAll
    static void stopRedis() throws Exception {
        if (redis != null) {
            redis.close();
        }
    }

    @Test
    void raisingTheCounterToTheTablesFencesIsReportedAsWhatHappened() {
        Logger logger = (Logger) LoggerFactory.getLogger(RedisLeaseManager.class);
        ListAppender<ILoggingEvent> appender = new ListAppender<>();
        appender.start();
        logger.addAppender(appender);
        String namespace = "leasebox-it-floor-" + UUID.randomUUID().toString().substring(0, 8);
        try (RedisLeaseManager manager = RedisLeaseManager.start(RedisLeaseConfig.builder().uri(redis.uri())
                .namespace(namespace).poolSize(1).build())) {
            assertThat(manager.raiseFenceFloor(20_042)).isTrue();
        } finally {
            logger.detachAppender(appender);
        }
        assertThat(appender.list).filteredOn(event -> event.getFormattedMessage().contains("fence counter")).singleElement().satisfies(event -> {
            String message = event.getFormattedMessage();
            assertThat(message).contains("at 20042").contains("above the highest fence already on the table")
                    .contains("first use of this namespace").doesNotContain("lost its data");
        });
    }

    @Test
    void aCounterFoundBelowTheTablesFencesIsReportedAsPossibleDataLoss() {
        Logger logger = (Logger) LoggerFactory.getLogger(RedisLeaseManager.class);
        ListAppender<ILoggingEvent> appender = new ListAppender<>();
        appender.start();
        String namespace = "leasebox-it-floor-" + UUID.randomUUID().toString().substring(0, 8);
        try (RedisLeaseManager manager = RedisLeaseManager.start(RedisLeaseConfig.builder().uri(redis.uri())
                .namespace(namespace).poolSize(1).build())) {
            assertThat(manager.raiseFenceFloor(10)).isTrue(); // the counter now exists
            logger.addAppender(appender);
            assertThat(manager.raiseFenceFloor(20_042)).isTrue();
        } finally {
            logger.detachAppender(appender);
        }
        assertThat(appender.list).filteredOn(event -> event.getFormattedMessage().contains("fence counter")).singleElement().satisfies(event -> {
            assertThat(event.getLevel()).isEqualTo(ch.qos.logback.classic.Level.WARN);
            assertThat(event.getFormattedMessage()).contains("to 20042").contains("lost its data");
        });
    }

    @Test
    void fencesUpTo2To53AreGrantedExactlyAndBeyondThemTheAcquireSaysWhy() {
        long maxExact = (1L << 53) - 1;
        String namespace = "leasebox-it-floor-" + UUID.randomUUID().toString().substring(0, 8);
        try (RedisLeaseManager manager = RedisLeaseManager.start(RedisLeaseConfig.builder().uri(redis.uri())
                .namespace(namespace).poolSize(1).build())) {
            assertThat(manager.raiseFenceFloor(maxExact - 5)).isTrue();

            assertThat(manager.acquire(new LeaseRequest(List.of("a", "b", "c"), "w1",
                    Duration.ofSeconds(30)))).extracting(Lease::fence)
                    .containsExactly(maxExact - 4, maxExact - 3, maxExact - 2);
            assertThatThrownBy(() -> manager.acquire(new LeaseRequest(List.of("d", "e", "f"), "w1",
                    Duration.ofSeconds(30))))
                    .isInstanceOf(LeaseManagerException.class).hasMessageContaining("too close to 2^53");
        }
    }
}
