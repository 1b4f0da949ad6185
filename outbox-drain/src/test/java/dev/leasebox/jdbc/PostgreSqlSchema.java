package dev.leasebox.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A fresh PostgreSQL schema and a pool on it for one test class, dropped afterwards:
 * {@code @RegisterExtension static final PostgreSqlSchema DB = new PostgreSqlSchema(4);}.
 */
public final class PostgreSqlSchema implements BeforeAllCallback, AfterAllCallback {

    private final int poolSize;
    private HikariDataSource ds;
    private String name;

    public PostgreSqlSchema(int poolSize) {
        this.poolSize = poolSize;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        ds = PostgreSqlTestServer.dataSource(poolSize);
        name = PostgreSqlTestServer.newSchema(ds);
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (ds != null) {
            PostgreSqlTestServer.dropSchema(ds, name);
            ds.close();
        }
    }

    /** The pool (its connections do not default to the schema: qualify names, or use {@link #name()}). */
    public HikariDataSource ds() {
        return ds;
    }

    /** The schema's name. */
    public String name() {
        return name;
    }
}
