package dev.leasebox.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import javax.sql.DataSource;

/** The claim-style registry on H2 in memory. */
class H2ClaimStyleRegistryTest extends ClaimStyleRegistryScenarios {

    private static HikariDataSource ds;

    @BeforeAll
    static void openDatabase() {
        ds = H2TestDatabase.newDatabase();
    }

    @AfterAll
    static void closeDatabase() {
        if (ds != null) {
            ds.close();
        }
    }

    @Override
    protected DataSource dataSource() {
        return ds;
    }

    @Override
    protected DatabaseKind kind() {
        return DatabaseKind.H2;
    }

    @Override
    protected String schema() {
        return H2TestDatabase.SCHEMA;
    }
}
