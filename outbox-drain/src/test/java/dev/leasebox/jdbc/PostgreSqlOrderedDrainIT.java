package dev.leasebox.jdbc;

import org.junit.jupiter.api.extension.RegisterExtension;

import javax.sql.DataSource;

/** The ordered drain's scenarios on a real PostgreSQL, in a schema of this class's own. */
class PostgreSqlOrderedDrainIT extends OrderedDrainScenarios {

    @RegisterExtension
    static final PostgreSqlSchema DB = new PostgreSqlSchema(6);

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
