package dev.leasebox.jdbc;

import com.zaxxer.hikari.HikariDataSource;

import java.util.UUID;

/** A private in-memory H2 database per test class, with schema {@link #SCHEMA}; gone when its pool closes. */
final class H2TestDatabase {

    static final String SCHEMA = "lb_test";

    private H2TestDatabase() {
    }

    static HikariDataSource newDatabase() {
        String name = "leasebox_" + UUID.randomUUID().toString().replace("-", "");
        HikariDataSource ds = TestDataSources.pooled("jdbc:h2:mem:" + name + ";DB_CLOSE_DELAY=-1", "sa", "", 4);
        PostgreSqlTestServer.execute(ds, "CREATE SCHEMA " + SCHEMA);
        return ds;
    }
}
