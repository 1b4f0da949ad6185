package dev.leasebox.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import javax.sql.DataSource;

/** {@link QueueHeadScenarios} on H2. */
class H2QueueHeadTest extends QueueHeadScenarios {

    private static HikariDataSource ds;

    @BeforeAll
    static void open() {
        ds = H2TestDatabase.newDatabase();
    }

    @AfterAll
    static void close() {
        ds.close();
    }

    @Override
    protected DataSource ds() {
        return ds;
    }

    @Override
    protected TableName freshTable() {
        return TestTables.fresh(ds, DatabaseKind.H2, H2TestDatabase.SCHEMA);
    }
}
