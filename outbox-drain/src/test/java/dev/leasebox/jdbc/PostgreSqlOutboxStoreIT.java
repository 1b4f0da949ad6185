package dev.leasebox.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import javax.sql.DataSource;

/** The JDBC store's scenarios on a real PostgreSQL, in a schema of this class's own. */
class PostgreSqlOutboxStoreIT extends JdbcOutboxStoreScenarios {

    private static HikariDataSource ds;
    private static String schema;

    @BeforeAll
    static void createSchema() {
        ds = PostgreSqlTestServer.dataSource(4);
        schema = PostgreSqlTestServer.newSchema(ds);
    }

    @AfterAll
    static void dropSchema() {
        if (ds != null) {
            PostgreSqlTestServer.dropSchema(ds, schema);
            ds.close();
        }
    }

    @Override
    protected DataSource dataSource() {
        return ds;
    }

    @Override
    protected String schema() {
        return schema;
    }

    @Override
    protected DatabaseKind kind() {
        return DatabaseKind.POSTGRESQL;
    }
}
