package dev.leasebox.jdbc;

import org.junit.jupiter.api.extension.RegisterExtension;

import javax.sql.DataSource;

/** Takeovers told where they happen, on a real MariaDB, in a database of this class's own. */
class MariaDbTakeoverIT extends TakeoverScenarios {

    @RegisterExtension
    static final MariaDbDatabase DB = new MariaDbDatabase(4);

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
