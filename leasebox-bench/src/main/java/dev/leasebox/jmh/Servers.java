package dev.leasebox.jmh;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

import java.net.URI;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The servers the micro-benchmarks run against, as the tests find them: {@code LEASEBOX_JDBC_URL}
 * (default PostgreSQL at 127.0.0.1:5432, database {@code test}) and {@code REDIS_URL} (default
 * redis://127.0.0.1:6379). A server that does not answer fails the benchmark's setup with one line
 * naming the address tried.
 */
final class Servers {

    private Servers() {
    }

    static String jdbcUrl() {
        String url = System.getenv("LEASEBOX_JDBC_URL");
        return url == null || url.isBlank() ? "jdbc:postgresql://127.0.0.1:5432/test?user=postgres" : url;
    }

    static URI redis() {
        String url = System.getenv("REDIS_URL");
        return URI.create(url == null || url.isBlank() ? "redis://127.0.0.1:6379" : url);
    }

    static HikariDataSource postgres(int poolSize) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(jdbcUrl());
        config.setMaximumPoolSize(poolSize);
        config.setInitializationFailTimeout(5_000);
        try {
            return new HikariDataSource(config);
        } catch (RuntimeException e) {
            throw new IllegalStateException("PostgreSQL at " + jdbcUrl() + " does not answer (" + e.getMessage()
                    + "); start it or set LEASEBOX_JDBC_URL", e);
        }
    }

    static void execute(HikariDataSource ds, String... statements) {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            for (String sql : statements) {
                s.execute(sql);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("benchmark setup on " + jdbcUrl() + " failed: " + e.getMessage(), e);
        }
    }
}
