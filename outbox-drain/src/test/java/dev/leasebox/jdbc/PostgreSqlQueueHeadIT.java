package dev.leasebox.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import dev.leasebox.jdbc.dialect.QueueScan;
import dev.leasebox.jdbc.store.JdbcOutboxStore;
import dev.leasebox.outbox.ClaimRequest;
import dev.leasebox.outbox.ClaimSelection;
import dev.leasebox.outbox.OutboxMessage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import javax.sql.DataSource;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@link QueueHeadScenarios} on PostgreSQL, and the transaction a pinned queue read opens ({@link QueueScan}). */
class PostgreSqlQueueHeadIT extends QueueHeadScenarios {

    @RegisterExtension
    static final PostgreSqlSchema DB = new PostgreSqlSchema(2);

    @Override
    protected DataSource ds() {
        return DB.ds();
    }

    @Override
    protected TableName freshTable() {
        return TestTables.fresh(DB.ds(), DatabaseKind.POSTGRESQL, DB.name());
    }

    @Test
    void aFailedQueueReadLeavesNoTransactionOpenOnItsConnection() {
        TableName table = freshTable();
        try (HikariDataSource one = TestDataSources.pooled(PostgreSqlTestServer.jdbcUrl(), "", "", 1)) {
            JdbcOutboxStore store = JdbcOutboxStore.builder(one).table(table).open();
            store.enqueue(OutboxMessage.of("t", "x".getBytes(StandardCharsets.UTF_8)));

            // PostgreSQL refuses a NUL in text: the claim fails after its BEGIN and SET LOCALs ran
            assertThatThrownBy(() -> store.claim(ClaimSelection.ELIGIBLE, new ClaimRequest("w\u0000", 10, Duration.ofSeconds(30))))
                    .isInstanceOf(JdbcOutboxException.class).hasMessageContaining("claim ELIGIBLE entries");

            // the pool's only connection again: usable, in no transaction, the planner settings its own
            assertThat(store.claim(ClaimSelection.ELIGIBLE, new ClaimRequest("w1", 10, Duration.ofSeconds(30)))).hasSize(1);
            assertThat(PostgreSqlTestServer.queryLong(one, "SELECT count(*) FROM pg_settings WHERE name IN "
                    + "('enable_bitmapscan', 'enable_sort') AND setting = 'on'")).isEqualTo(2);
        }
    }
}
