package dev.leasebox.jdbc;

import com.zaxxer.hikari.HikariDataSource;

/** {@link ConcurrentDrainScenarios} on the real PostgreSQL. */
class PostgreSqlConcurrentDrainIT extends ConcurrentDrainScenarios {

    @Override
    protected HikariDataSource openDataSource(int size) {
        return PostgreSqlTestServer.dataSource(size);
    }

    @Override
    protected String newSchema(HikariDataSource dataSource) {
        return PostgreSqlTestServer.newSchema(dataSource);
    }

    @Override
    protected void dropSchema(HikariDataSource dataSource, String schema) {
        PostgreSqlTestServer.dropSchema(dataSource, schema);
    }

    @Override
    protected DatabaseKind kind() {
        return DatabaseKind.POSTGRESQL;
    }
}
