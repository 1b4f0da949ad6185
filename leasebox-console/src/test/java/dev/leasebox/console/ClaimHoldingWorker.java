package dev.leasebox.console;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.leasebox.Leasebox;
import dev.leasebox.drain.DrainOptions;
import dev.leasebox.jdbc.TableName;
import dev.leasebox.lease.redis.RedisLeaseConfig;
import dev.leasebox.lease.redis.RedisLeaseManager;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;

/**
 * A worker JVM for {@link ConsoleTakeoverIT}: drains {@code TABLE} through Redis row leases as {@code OWNER},
 * a batch of {@code BATCH} at a time, and never hears back from its receiver, so it holds its claims (renewing
 * them) until the test kills it with SIGKILL. Prints {@code EMITTING <key>} for each emission it starts.
 *
 * <p>Arguments: JDBC_URL TABLE REDIS_URI NAMESPACE OWNER BATCH LEASE_MILLIS
 */
public final class ClaimHoldingWorker {

    private ClaimHoldingWorker() {
    }

    public static void main(String[] args) throws Exception {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(args[0]);
        config.setMaximumPoolSize(4);
        HikariDataSource dataSource = new HikariDataSource(config);
        RedisLeaseManager leases = RedisLeaseManager.start(RedisLeaseConfig.builder().uri(args[2]).namespace(args[3]).build());
        CountDownLatch never = new CountDownLatch(1);
        Leasebox drain = Leasebox.drain(dataSource).table(TableName.parse(args[1])).leases(leases)
                .options(DrainOptions.builder().owner(args[4]).batchSize(Integer.parseInt(args[5]))
                        .leaseDuration(Duration.ofMillis(Long.parseLong(args[6])))
                        .idlePolling(Duration.ofMillis(20), Duration.ofMillis(100)).build())
                .provider(envelope -> {
                    System.out.println("EMITTING " + envelope.idempotencyKey());
                    System.out.flush();
                    never.await(); // the receiver never answers: the claims stay held while this JVM lives
                    throw new IllegalStateException("unreachable");
                }).build();
        drain.start();
        never.await();
    }
}
