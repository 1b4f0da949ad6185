package dev.leasebox.jdbc;

import org.junit.jupiter.api.extension.RegisterExtension;

import javax.sql.DataSource;

/** The claim-style registry on PostgreSQL. */
class PostgreSqlClaimStyleRegistryIT extends ClaimStyleRegistryScenarios {

    @RegisterExtension
    static final PostgreSqlSchema DB = new PostgreSqlSchema(8);

    @Override
    protected DataSource dataSource() {
        return DB.ds();
    }

    @Override
    protected DatabaseKind kind() {
        return DatabaseKind.POSTGRESQL;
    }

    @Override
    protected String schema() {
        return DB.name();
    }
}
