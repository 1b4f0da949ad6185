package dev.leasebox.jdbc;

import org.junit.jupiter.api.extension.RegisterExtension;

import javax.sql.DataSource;

/** The claim-style registry on MariaDB. */
class MariaDbClaimStyleRegistryIT extends ClaimStyleRegistryScenarios {

    @RegisterExtension
    static final MariaDbDatabase DB = new MariaDbDatabase(8);

    @Override
    protected DataSource dataSource() {
        return DB.ds();
    }

    @Override
    protected DatabaseKind kind() {
        return DatabaseKind.MARIADB;
    }

    @Override
    protected String schema() {
        return DB.name();
    }
}
