package dev.leasebox.bench;

import dev.leasebox.jdbc.TableName;
import dev.leasebox.jdbc.store.PostgreSqlCommitListener;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.SQLException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The tables a cell drains have V7's wake-up trigger exactly when the cell runs with wake-ups on: without it, a
 * drain with wake-ups on hears of no commit from the bench's plain-SQL writers and its latency is the idle poll's.
 */
class BenchTablesIT {

    private BenchDatabase database;

    @BeforeEach
    void open() {
        database = BenchDatabase.open(System.getenv().getOrDefault("LEASEBOX_JDBC_URL", BenchCommand.DEFAULT_JDBC_URL));
    }

    @AfterEach
    void close() {
        database.close();
    }

    @Test
    void cellsWithWakeUpsOnDrainATableWithTheWakeUpTrigger() throws SQLException {
        assertThat(hasTrigger(database.freshTable(false, true))).as("row leases, wake-ups on").isTrue();
        assertThat(hasTrigger(database.freshTable(true, true))).as("partition leases, wake-ups on").isTrue();
    }

    @Test
    void cellsWithWakeUpsOffDrainATableWithoutIt() throws SQLException {
        assertThat(hasTrigger(database.freshTable(false, false))).as("row leases, wake-ups off").isFalse();
        assertThat(hasTrigger(database.freshTable(true, false))).as("partition leases, wake-ups off").isFalse();
        assertThat(hasTrigger(database.freshTable())).isFalse();
    }

    private boolean hasTrigger(TableName table) throws SQLException {
        try (var pool = database.newPool(1); Connection c = pool.getConnection()) {
            return PostgreSqlCommitListener.hasTrigger(c, table);
        }
    }
}
