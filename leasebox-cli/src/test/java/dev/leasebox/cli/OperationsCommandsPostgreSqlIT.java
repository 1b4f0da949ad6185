package dev.leasebox.cli;

import com.zaxxer.hikari.HikariDataSource;
import dev.leasebox.jdbc.PostgreSqlTestServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;

import java.util.ArrayList;
import java.util.List;

/** Redrive and purge against a real PostgreSQL, each test in a schema of its own. */
class OperationsCommandsPostgreSqlIT extends OperationsCommandsScenarios {

    private static HikariDataSource admin;
    private final List<String> schemas = new ArrayList<>();

    @BeforeAll
    static void connect() {
        admin = PostgreSqlTestServer.dataSource(1);
    }

    @AfterAll
    static void disconnect() {
        admin.close();
    }

    @Override
    protected String url() {
        String schema = PostgreSqlTestServer.newSchema(admin);
        schemas.add(schema);
        return PostgreSqlTestServer.jdbcUrlFor(schema);
    }

    @AfterEach
    void dropSchemas() {
        schemas.forEach(s -> PostgreSqlTestServer.dropSchema(admin, s));
    }
}
