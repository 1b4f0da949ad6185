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

    private final int poolSize;
    private HikariDataSource ds;
    private String name;

    public MariaDbDatabase(int poolSize) {
        this.poolSize = poolSize;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        ds = MariaDbTestServer.dataSource(poolSize);
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
