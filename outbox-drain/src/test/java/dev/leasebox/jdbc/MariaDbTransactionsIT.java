package dev.leasebox.jdbc;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import dev.leasebox.jdbc.dialect.MariaDbTransactions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * MariaDB's multi-statement transactions on a real server: when the connection is killed (KILL CONNECTION
 * from another session) after the work ran and before it committed, the failure says the commit's outcome
 * is unknown, not what the rollback on the dead connection said.
 */
class MariaDbTransactionsIT {

    @RegisterExtension
    static final MariaDbDatabase DB = new MariaDbDatabase(2);

    @Test
    void aCommitOnAKilledConnectionIsReportedAsOutcomeUnknown() throws Exception {
        String table = DB.name() + ".committed_" + System.nanoTime();
        PostgreSqlTestServer.execute(DB.ds(), "CREATE TABLE " + table + " (id INT PRIMARY KEY) ENGINE = InnoDB");
        try (Connection c = DriverManager.getConnection(MariaDbTestServer.jdbcUrlFor(DB.name()))) {
            long id;
            try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT CONNECTION_ID()")) {
                rs.next();
                id = rs.getLong(1);
            }
            assertThatThrownBy(() -> MariaDbTransactions.transaction(c, () -> {
                try (Statement st = c.createStatement()) {
                    st.executeUpdate("INSERT INTO " + table + " VALUES (1)");
                }
                PostgreSqlTestServer.execute(DB.ds(), "KILL CONNECTION " + id);
                return null;
            })).isInstanceOf(SQLException.class)
                    .hasMessageStartingWith("commit outcome unknown")
                    .hasMessageContaining("may or may not have been applied");
        }
        try (Connection c = DB.ds().getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT COUNT(*) FROM " + table)) {
            rs.next();
            assertThat(rs.getLong(1)).as("the server rolled back the killed session's transaction").isZero();
        }
    }
}
