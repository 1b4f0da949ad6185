package example;

import dev.leasebox.Leasebox;
import dev.leasebox.drain.DrainOptions;
import dev.leasebox.jdbc.LeaseboxSchema;
import dev.leasebox.jdbc.OutboxWriter;
import dev.leasebox.jdbc.TableName;
import dev.leasebox.lease.redis.RedisLeaseManager;
import dev.leasebox.outbox.OutboxMessage;
import dev.leasebox.provider.OutboxProvider;
import dev.leasebox.provider.ProviderOutcome;
import org.postgresql.ds.PGSimpleDataSource;
import redis.clients.jedis.RedisClient;

import javax.sql.DataSource;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Embeds the drain in a plain Java program: enqueue entries in the service's own transaction with
 * {@link OutboxWriter}, then drain them, once claiming in the database itself and once leasing rows
 * from Redis through the client the service already has.
 *
 * <pre>
 * java example.PlainJavaExample jdbc:postgresql://127.0.0.1:5432/test?user=postgres redis://127.0.0.1:6379 [entries]
 * </pre>
 */
public final class PlainJavaExample {

    private PlainJavaExample() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 2) {
            System.err.println("usage: PlainJavaExample JDBC_URL REDIS_URI [ENTRIES]");
            System.exit(2);
        }
        int entries = args.length > 2 ? Integer.parseInt(args[2]) : 100;
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setUrl(args[0]);

        TableName table = TableName.parse("example_outbox");
        new LeaseboxSchema(table).migrate(dataSource); // only what the table lacks

        enqueue(dataSource, table, entries);
        System.out.println("database backend: delivered " + drain(dataSource, table, null, entries));

        try (RedisClient redis = RedisClient.create(URI.create(args[1]));
             RedisLeaseManager leases = RedisLeaseManager.using(redis, args[1], "example")) {
            enqueue(dataSource, table, entries);
            System.out.println("redis backend: delivered " + drain(dataSource, table, leases, entries));
        }
    }

    /** What a service does in its own transaction: the business write and the outbox entry commit together. */
    static void enqueue(DataSource dataSource, TableName table, int entries) {
        OutboxWriter writer = OutboxWriter.of(table, Clock.systemUTC());
        for (int i = 0; i < entries; i++) {
            writer.enqueue(dataSource, OutboxMessage.of("order-placed",
                    ("{\"order\":" + i + "}").getBytes(StandardCharsets.UTF_8)));
        }
    }

    /** Drains until {@code expected} entries were delivered; returns how many distinct entries the provider saw. */
    static int drain(DataSource dataSource, TableName table, RedisLeaseManager leases, int expected)
            throws InterruptedException {
        Set<Long> seen = ConcurrentHashMap.newKeySet();
        CountDownLatch delivered = new CountDownLatch(expected);
        OutboxProvider provider = envelope -> {
            // a real provider publishes here, passing envelope.idempotencyKey() on for the receiver
            if (seen.add(envelope.entryId())) {
                delivered.countDown();
            }
            return new ProviderOutcome.Delivered("printed");
        };
        Leasebox.Builder builder = Leasebox.drain(dataSource).table(table).provider(provider)
                .options(DrainOptions.builder().concurrency(2).batchSize(50).build());
        if (leases != null) {
            builder.leases(leases);
        }
        try (Leasebox drain = builder.build()) {
            drain.start();
            if (!delivered.await(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("only " + seen.size() + " of " + expected + " entries delivered in 60 s");
            }
        }
        return seen.size();
    }
}
