package dev.leasebox.jdbc;

import dev.leasebox.Leasebox;
import dev.leasebox.claim.Granularity;
import dev.leasebox.drain.DrainOptions;
import dev.leasebox.outbox.OutboxMessage;
import dev.leasebox.provider.ProviderOutcome;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code meterLeases} on a real PostgreSQL: the lease manager the drain opens itself, for partition leases, is metered. */
class PostgreSqlMeteredLeasesIT {

    @RegisterExtension
    static final PostgreSqlSchema DB = new PostgreSqlSchema(6);

    @Test
    void theTablesOwnSlotLeasesAreCountedInTheRegistry() {
        TableName table = new TableName(DB.name(), "metered_slots");
        new LeaseboxSchema(table, 4).applyAll(DB.ds());
        OutboxWriter writer = OutboxWriter.of(table, Clock.systemUTC());
        for (int i = 0; i < 10; i++) {
            writer.enqueue(DB.ds(), OutboxMessage.of("t", ("" + i).getBytes(StandardCharsets.UTF_8)).withPartitionKey("k" + i));
        }
        Set<Long> delivered = ConcurrentHashMap.newKeySet();
        MeterRegistry registry = new SimpleMeterRegistry();
        try (Leasebox drain = Leasebox.drain(DB.ds()).table(table).granularity(Granularity.PARTITION)
                .meterLeases(registry).options(DrainOptions.builder().owner("metered").build())
                .provider(envelope -> {
                    delivered.add(envelope.entryId());
                    return ProviderOutcome.delivered();
                }).build()) {
            drain.engine().drainUntilIdle(20);
            assertThat(registry.get("leasebox.leases.held").gauge().value()).as("the 4 slots, held").isEqualTo(4);
        }
        assertThat(delivered).hasSize(10);
        assertThat(registry.get("leasebox.leases").tag("event", "granted").counter().count()).isEqualTo(4);
    }
}
