package dev.leasebox.jdbc;

import com.zaxxer.hikari.HikariDataSource;

/** {@link ConcurrentDrainScenarios} on the real MariaDB. */
class MariaDbConcurrentDrainIT extends ConcurrentDrainScenarios {

    @Override
    protected HikariDataSource openDataSource(int size) {
        return MariaDbTestServer.dataSource(size);
    }

    @Override
    protected String newSchema(HikariDataSource dataSource) {
        return MariaDbTestServer.newDatabase(dataSource);
    }

    @Override
    protected void dropSchema(HikariDataSource dataSource, String schema) {
        MariaDbTestServer.dropDatabase(dataSource, schema);
    }

    @Override
    protected DatabaseKind kind() {
        return DatabaseKind.MARIADB;
    }
}
