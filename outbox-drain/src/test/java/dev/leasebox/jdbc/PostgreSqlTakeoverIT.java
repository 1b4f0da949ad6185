package dev.leasebox.jdbc;

import org.junit.jupiter.api.extension.RegisterExtension;

import javax.sql.DataSource;

/** Takeovers told where they happen, on a real PostgreSQL, in a schema of this class's own. */
class PostgreSqlTakeoverIT extends TakeoverScenarios {

    @RegisterExtension
    static final PostgreSqlSchema DB = new PostgreSqlSchema(4);

    @Override
    protected DataSource dataSource() {
        return DB.ds();
    }

    @Override
    protected String schema() {
        return DB.name();
    }

    @Override
    protected DatabaseKind kind() {
        return DatabaseKind.POSTGRESQL;
    }
}
