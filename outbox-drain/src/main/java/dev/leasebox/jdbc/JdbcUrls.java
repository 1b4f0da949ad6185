package dev.leasebox.jdbc;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.regex.Pattern;

/** JDBC URLs and data sources described for messages and logs, passwords removed. */
public final class JdbcUrls {

    private static final Pattern PASSWORD_PARAMETER = Pattern.compile("(?i)(password|pwd)=[^&;]*");
    private static final Pattern USER_INFO = Pattern.compile("//([^/:@]+):[^/@]*@");

    private JdbcUrls() {
    }

    /** {@code jdbcUrl} with any password replaced by {@code ***}: safe for logs and messages. */
    public static String redact(String jdbcUrl) {
        if (jdbcUrl == null) {
            return "(unknown URL)";
        }
        String noParam = PASSWORD_PARAMETER.matcher(jdbcUrl).replaceAll("$1=***");
        return USER_INFO.matcher(noParam).replaceAll("//$1:***@");
    }

    /**
     * A one-line description of where {@code dataSource} connects, without password: the URL the pool or
     * driver's data source was configured with ({@code getJdbcUrl()} of HikariCP, {@code getUrl()} of the
     * drivers' own), else the URL a connection reports, else the data source's class.
     */
    public static String describe(DataSource dataSource) {
        for (String getter : new String[] {"getJdbcUrl", "getUrl"}) {
            try {
                Object url = dataSource.getClass().getMethod(getter).invoke(dataSource);
                if (url instanceof String text && !text.isBlank()) {
                    return redact(concise(text));
                }
            } catch (ReflectiveOperationException | RuntimeException notThisKind) {
                // not a getter this data source has: try the next way
            }
        }
        try (Connection c = dataSource.getConnection()) {
            return redact(c.getMetaData().getURL());
        } catch (SQLException | RuntimeException e) {
            return dataSource.getClass().getSimpleName();
        }
    }

    /** A URL a driver spelled out with every default property (PostgreSQL's data source does) cut before its query. */
    private static String concise(String url) {
        int query = url.indexOf('?');
        return url.length() > 160 && query > 0 ? url.substring(0, query) : url;
    }

    /** The innermost message of {@code e}'s causes, on one line. */
    public static String rootMessage(Throwable e) {
        Throwable t = e;
        String message = e.getMessage();
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
            if (t.getMessage() != null) {
                message = t.getMessage();
            }
        }
        return message == null ? e.getClass().getSimpleName() : message.replace('\n', ' ').trim();
    }
}
