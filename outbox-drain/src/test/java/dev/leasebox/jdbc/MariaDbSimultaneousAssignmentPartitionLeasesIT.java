package dev.leasebox.jdbc;

import org.junit.jupiter.api.extension.RegisterExtension;

import javax.sql.DataSource;

/** Partition leases' scenarios (recorded slot claims among them) on MariaDB under sql_mode SIMULTANEOUS_ASSIGNMENT. */
class MariaDbSimultaneousAssignmentPartitionLeasesIT extends LeanPartitionClaimsScenarios {

    @RegisterExtension
    static final MariaDbDatabase DB = new MariaDbDatabase(8, MariaDbDatabase.SIMULTANEOUS_ASSIGNMENT);

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
