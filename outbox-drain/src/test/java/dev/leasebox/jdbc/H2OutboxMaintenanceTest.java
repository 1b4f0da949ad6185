package dev.leasebox.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import javax.sql.DataSource;

/** Redrive and purge on H2 in memory. */
class H2OutboxMaintenanceTest extends OutboxMaintenanceScenarios {

    private static HikariDataSource ds;

    @BeforeAll
    static void startDatabase() {
        ds = H2TestDatabase.newDatabase();
    }

    @AfterAll
    static void stopDatabase() {
        ds.close();
    }

    @Override
    protected DataSource dataSource() {
        return ds;
    }

    @Override
    protected String schema() {
        return H2TestDatabase.SCHEMA;
    }

    @Override
    protected DatabaseKind kind() {
        return DatabaseKind.H2;
    }
}
