package dev.leasebox.cli;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.leasebox.jdbc.DatabaseKind;
import dev.leasebox.jdbc.JdbcOutboxException;
import dev.leasebox.jdbc.JdbcUrls;

import java.time.Duration;
import java.util.Objects;

/**
 * Builds the connection pool a {@code JdbcOutboxStore} runs on in real use: HikariCP, auto-commit
 * on (every store statement is atomic by itself), connecting once at build time so that a wrong URL
 * or an unreachable database fails here, with one line naming the URL tried (password removed).
 */
public final class JdbcDataSources {

    private JdbcDataSources() {
    }

    /**
     * A Hikari pool on {@code jdbcUrl}.
     *
     * @param user     the user, or empty to take it from the URL
     * @param password the password, or empty for none (trust auth) or one in the URL
     * @param maxPoolSize the pool's size (the drain needs about one connection per worker thread)
     * @throws JdbcOutboxException when the URL is invalid or the database cannot be reached
     */
    public static HikariDataSource pooled(String jdbcUrl, String user, String password, int maxPoolSize) {
        Objects.requireNonNull(jdbcUrl, "jdbcUrl");
        if (!jdbcUrl.startsWith("jdbc:")) {
            throw new JdbcOutboxException("Invalid JDBC URL '" + redact(jdbcUrl)
                    + "' (property jdbcUrl): expected e.g. jdbc:postgresql://127.0.0.1:5432/outbox");
        }
        if (maxPoolSize < 1) {
            throw new JdbcOutboxException("Invalid maxPoolSize " + maxPoolSize + ": must be at least 1");
        }
        DatabaseKind.ofJdbcUrl(jdbcUrl);
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(driverUrl(jdbcUrl));
        if (user != null && !user.isEmpty()) {
            config.setUsername(user);
        }
        if (password != null && !password.isEmpty()) {
            config.setPassword(password);
        }
        config.setMaximumPoolSize(maxPoolSize);
        config.setAutoCommit(true);
        config.setConnectionTimeout(Duration.ofSeconds(5).toMillis());
        config.setInitializationFailTimeout(1);
        config.setPoolName("leasebox-outbox");
        try {
            return new HikariDataSource(config);
        } catch (RuntimeException e) {
            throw new JdbcOutboxException("Cannot reach the outbox database at " + redact(jdbcUrl) + ": "
                    + rootMessage(e) + " (check the URL, that the database runs and accepts this user)", e);
        }
    }

    /**
     * The URL handed to the driver: {@code jdbcUrl}, except that a {@code jdbc:mysql:} URL gets
     * {@code permitMysqlScheme}, so that the MariaDB driver on the class path takes it (the server's own
     * answer then decides whether it is a MariaDB Leasebox supports).
     */
    public static String driverUrl(String jdbcUrl) {
        if (!jdbcUrl.startsWith("jdbc:mysql:") || jdbcUrl.contains("permitMysqlScheme")) {
            return jdbcUrl;
        }
        return jdbcUrl + (jdbcUrl.contains("?") ? "&" : "?") + "permitMysqlScheme";
    }

    /** A Hikari pool on {@code jdbcUrl} with credentials in the URL (or none), 10 connections. */
    public static HikariDataSource pooled(String jdbcUrl) {
        return pooled(jdbcUrl, "", "", 10);
    }

    /** {@code jdbcUrl} with any password replaced by {@code ***}: safe for logs and messages. */
    public static String redact(String jdbcUrl) {
        return JdbcUrls.redact(jdbcUrl);
    }

    static String rootMessage(Throwable e) {
        return JdbcUrls.rootMessage(e);
    }
}
