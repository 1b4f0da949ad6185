package dev.leasebox.jdbc;

import org.junit.jupiter.api.extension.RegisterExtension;

import javax.sql.DataSource;

/** Partition leases' scenarios on a real PostgreSQL, in a schema of this class's own. */
class PostgreSqlPartitionLeasesIT extends LeanPartitionClaimsScenarios {

    @RegisterExtension
    static final PostgreSqlSchema DB = new PostgreSqlSchema(8);

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
