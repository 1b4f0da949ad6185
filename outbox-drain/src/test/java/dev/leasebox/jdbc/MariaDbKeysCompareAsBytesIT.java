package dev.leasebox.jdbc;

import dev.leasebox.jdbc.lease.JdbcLeaseManager;
import dev.leasebox.jdbc.store.JdbcOutboxStore;
import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseRequest;
import dev.leasebox.outbox.OutboxEntry;
import dev.leasebox.outbox.OutboxMessage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Keys compare byte for byte on a migrated MariaDB table, as on PostgreSQL: a key with a trailing space is
 * another key for the outbox's unique index and for the leases held in the database.
 */
class MariaDbKeysCompareAsBytesIT {

    @RegisterExtension
    static final MariaDbDatabase DB = new MariaDbDatabase(4);

    @Test
    void anIdempotencyKeyWithATrailingSpaceIsAnotherKey() {
        JdbcOutboxStore store = JdbcOutboxStore.builder(DB.ds()).table(TestTables.fresh(DB.ds(), DatabaseKind.MARIADB, DB.name())).open();
        OutboxEntry plain = store.enqueue(OutboxMessage.of("t", new byte[0]).withIdempotencyKey("k"));
        OutboxEntry spaced = store.enqueue(OutboxMessage.of("t", new byte[0]).withIdempotencyKey("k "));

        assertThat(spaced.id()).isNotEqualTo(plain.id());
        assertThat(store.find(spaced.id()).orElseThrow().idempotencyKey()).isEqualTo("k ");
        assertThatThrownBy(() -> store.enqueue(OutboxMessage.of("t", new byte[0]).withIdempotencyKey("k ")))
                .as("the same bytes again are still a repeat").isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aLeaseKeyWithATrailingSpaceIsAnotherLease() {
        TableName table = TestTables.fresh(DB.ds(), DatabaseKind.MARIADB, DB.name());
        try (JdbcLeaseManager one = JdbcLeaseManager.builder(DB.ds()).table(table).open();
             JdbcLeaseManager other = JdbcLeaseManager.builder(DB.ds()).table(table).open()) {
            List<Lease> first = one.acquire(new LeaseRequest(List.of("a"), "one", Duration.ofSeconds(30)));
            List<Lease> second = other.acquire(new LeaseRequest(List.of("a "), "other", Duration.ofSeconds(30)));

            assertThat(first).extracting(Lease::key).containsExactly("a");
            assertThat(second).as("'a ' is free while 'a' is held").extracting(Lease::key).containsExactly("a ");
        }
    }
}
