package dev.leasebox.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

/** Pools for the store's tests: what a service hands the library, HikariCP with auto-commit on. */
public final class TestDataSources {

    private TestDataSources() {
    }

    public static HikariDataSource pooled(String jdbcUrl, String user, String password, int maxPoolSize) {
        return pooled(jdbcUrl, user, password, maxPoolSize, null);
    }

    /** As above, every connection the pool opens running {@code connectionInitSql} (null: none) first. */
    public static HikariDataSource pooled(String jdbcUrl, String user, String password, int maxPoolSize,
                                          String connectionInitSql) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(jdbcUrl);
        if (!user.isEmpty()) {
            config.setUsername(user);
        }
        if (!password.isEmpty()) {
            config.setPassword(password);
        }
        config.setMaximumPoolSize(maxPoolSize);
        config.setAutoCommit(true);
        config.setConnectionTimeout(5_000);
        config.setInitializationFailTimeout(1);
        if (connectionInitSql != null) {
            config.setConnectionInitSql(connectionInitSql);
        }
        return new HikariDataSource(config);
    }
}
