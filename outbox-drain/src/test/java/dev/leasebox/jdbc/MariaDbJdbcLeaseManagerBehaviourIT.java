package dev.leasebox.jdbc;

import org.junit.jupiter.api.extension.RegisterExtension;

import javax.sql.DataSource;

/** JdbcLeaseManager's scenarios on MariaDB, in a database of this class's own. */
class MariaDbJdbcLeaseManagerBehaviourIT extends JdbcLeaseManagerScenarios {

    @RegisterExtension
    static final MariaDbDatabase DB = new MariaDbDatabase(6);

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
        return DatabaseKind.MARIADB;
    }
}
