package dev.leasebox.jdbc;

import org.junit.jupiter.api.extension.RegisterExtension;

import javax.sql.DataSource;

/** {@link QueueHeadScenarios} on MariaDB. */
class MariaDbQueueHeadIT extends QueueHeadScenarios {

    @RegisterExtension
    static final MariaDbDatabase DB = new MariaDbDatabase(2);

    @Override
    protected DataSource ds() {
        return DB.ds();
    }

    @Override
    protected TableName freshTable() {
        return TestTables.fresh(DB.ds(), DatabaseKind.MARIADB, DB.name());
    }
}
