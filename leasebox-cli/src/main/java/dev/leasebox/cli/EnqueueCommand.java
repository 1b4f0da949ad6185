package dev.leasebox.cli;

import com.zaxxer.hikari.HikariDataSource;
import dev.leasebox.jdbc.OutboxWriter;
import dev.leasebox.outbox.OutboxMessage;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import dev.leasebox.jdbc.store.JdbcOutboxStore;
import java.time.Clock;
import java.util.Arrays;
import java.util.concurrent.Callable;

/** Writes test and load data into the outbox, in transactions of {@value #TRANSACTION_SIZE} entries. */
@Command(name = "enqueue", mixinStandardHelpOptions = true,
        description = "Enqueue COUNT test entries (in order; with --partition-keys K they cycle over K partition keys).")
final class EnqueueCommand implements Callable<Integer> {

    static final int TRANSACTION_SIZE = 1_000;

    @Spec
    CommandSpec spec;

    @Mixin
    DatabaseOptions database;

    @Option(names = "--count", required = true, paramLabel = "N", description = "How many entries to enqueue.")
    int count;

    @Option(names = "--partition-keys", paramLabel = "K", defaultValue = "0",
            description = "Cycle the entries over K partition keys key-0..key-(K-1), in order (0: none).")
    int partitionKeys;

    @Option(names = "--payload-bytes", paramLabel = "B", defaultValue = "64", description = "Payload size (default: ${DEFAULT-VALUE}).")
    int payloadBytes;

    @Option(names = "--type", paramLabel = "TYPE", defaultValue = "leasebox.test", description = "Entry type (default: ${DEFAULT-VALUE}).")
    String type;

    @Override
    public Integer call() throws SQLException {
        if (count < 1) {
            throw new IllegalArgumentException("--count must be at least 1, was " + count);
        }
        if (partitionKeys < 0) {
            throw new IllegalArgumentException("--partition-keys must be 0 or more, was " + partitionKeys);
        }
        if (payloadBytes < 0 || payloadBytes > 10_000_000) {
            throw new IllegalArgumentException("--payload-bytes must be in 0..10000000, was " + payloadBytes);
        }
        Progress progress = new Progress(spec.commandLine().getErr(), "enqueue", count);
        try (HikariDataSource dataSource = database.open()) {
            // the schema check says which migration is missing, in one line, before any insert fails on it
            JdbcOutboxStore.builder(dataSource).table(database.tableName()).useClaimLeases(false).open();
            int written = enqueue(dataSource, database, count, partitionKeys, payloadBytes, type, progress);
            progress.finish();
            spec.commandLine().getOut().println("Enqueued " + written + " entries into " + database.tableName());
        }
        return CliErrors.EXIT_OK;
    }

    /** Enqueues {@code count} entries; returns how many were written. Shared with the demo. */
    static int enqueue(javax.sql.DataSource dataSource, DatabaseOptions database, int count, int partitionKeys,
                       int payloadBytes, String type, Progress progress) throws SQLException {
        int written = 0;
        try (Connection connection = dataSource.getConnection()) {
            OutboxWriter writer = OutboxWriter.of(database.tableName(), Clock.systemUTC());
            connection.setAutoCommit(false);
            try {
                for (int i = 0; i < count; i++) {
                    OutboxMessage message = OutboxMessage.of(type, payload(i, payloadBytes));
                    if (partitionKeys > 0) {
                        message = message.withPartitionKey("key-" + (i % partitionKeys));
                    }
                    writer.enqueue(connection, message);
                    written++;
                    if (written % TRANSACTION_SIZE == 0) {
                        connection.commit();
                        progress.update(written);
                    }
                }
                connection.commit();
                if (written % TRANSACTION_SIZE != 0) {
                    progress.update(written);
                }
            } catch (SQLException | RuntimeException e) {
                connection.rollback();
                throw e;
            }
        }
        return written;
    }

    private static byte[] payload(int seq, int size) {
        byte[] head = ("{\"seq\":" + seq + "}").getBytes(StandardCharsets.UTF_8);
        if (size <= head.length) {
            return Arrays.copyOf(head, Math.max(size, 0));
        }
        byte[] payload = Arrays.copyOf(head, size);
        Arrays.fill(payload, head.length, size, (byte) ' ');
        return payload;
    }
}
