package dev.leasebox.chaos.harness;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.leasebox.jdbc.JdbcUrls;

import java.time.Duration;

/**
 * The chaos harness's and workers' connection pools: HikariCP with auto-commit on, connecting once when built, so
 * that an unreachable database fails here with one line naming the URL (password removed).
 */
public final class PooledDataSources {

    private PooledDataSources() {
    }

    /** A pool of {@code size} connections on {@code jdbcUrl}, credentials in the URL. */
    public static HikariDataSource pooled(String jdbcUrl, int size) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(jdbcUrl);
        config.setMaximumPoolSize(size);
        config.setAutoCommit(true);
        config.setConnectionTimeout(Duration.ofSeconds(5).toMillis());
        config.setInitializationFailTimeout(1);
        config.setPoolName("leasebox-chaos");
        try {
            return new HikariDataSource(config);
        } catch (RuntimeException e) {
            throw new IllegalStateException("cannot reach the chaos database at " + JdbcUrls.redact(jdbcUrl) + ": "
                    + JdbcUrls.rootMessage(e), e);
        }
    }
}
