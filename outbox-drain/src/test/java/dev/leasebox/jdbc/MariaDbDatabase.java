package dev.leasebox.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A fresh MariaDB database and a pool for one test class, dropped afterwards:
 * {@code @RegisterExtension static final MariaDbDatabase DB = new MariaDbDatabase(4);}. Table names
 * are qualified with {@link #name()} (MariaDB's databases play PostgreSQL's schemas).
 */
public final class MariaDbDatabase implements BeforeAllCallback, AfterAllCallback {

    /**
     * MariaDB's standard-SQL assignment (a server or session setting): every SET reads the row's old
     * values, so no statement may read back a column assigned earlier in the same SET.
     */
    public static final String SIMULTANEOUS_ASSIGNMENT =
            "SET SESSION sql_mode = CONCAT(@@sql_mode, ',SIMULTANEOUS_ASSIGNMENT')";

    private final int poolSize;
    private final String connectionInitSql;
    private HikariDataSource ds;
    private String name;

    public MariaDbDatabase(int poolSize) {
        this(poolSize, null);
    }

    /** A database whose pool runs {@code connectionInitSql} (or nothing, if null) on every connection it opens. */
    public MariaDbDatabase(int poolSize, String connectionInitSql) {
        this.poolSize = poolSize;
        this.connectionInitSql = connectionInitSql;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        ds = connectionInitSql == null ? MariaDbTestServer.dataSource(poolSize)
                : MariaDbTestServer.dataSource(poolSize, connectionInitSql);
        name = MariaDbTestServer.newDatabase(ds);
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (ds != null) {
            MariaDbTestServer.dropDatabase(ds, name);
            ds.close();
        }
    }

    public HikariDataSource ds() {
        return ds;
    }

    /** The database's name, which qualifies the class's tables. */
    public String name() {
        return name;
    }
}
