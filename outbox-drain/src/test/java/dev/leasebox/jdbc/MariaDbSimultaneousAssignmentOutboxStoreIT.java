package dev.leasebox.jdbc;

import org.junit.jupiter.api.extension.RegisterExtension;

import javax.sql.DataSource;

/** The JDBC store's scenarios on MariaDB under sql_mode SIMULTANEOUS_ASSIGNMENT, set on every pooled connection. */
class MariaDbSimultaneousAssignmentOutboxStoreIT extends JdbcOutboxStoreScenarios {

    @RegisterExtension
    static final MariaDbDatabase DB = new MariaDbDatabase(4, MariaDbDatabase.SIMULTANEOUS_ASSIGNMENT);

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
