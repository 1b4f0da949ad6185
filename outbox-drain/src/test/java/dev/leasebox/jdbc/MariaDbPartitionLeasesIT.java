package dev.leasebox.jdbc;

import org.junit.jupiter.api.extension.RegisterExtension;

import javax.sql.DataSource;

/** Partition leases' scenarios on a real MariaDB, in a database of this class's own. */
class MariaDbPartitionLeasesIT extends LeanPartitionClaimsScenarios {

    @RegisterExtension
    static final MariaDbDatabase DB = new MariaDbDatabase(8);

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
