package example;

import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;

import static org.assertj.core.api.Assertions.assertThat;

/** Runs the example as a user would, against the PostgreSQL and Redis this machine runs. */
class PlainJavaExampleIT {

    private static final String JDBC_URL = System.getenv().getOrDefault("LEASEBOX_JDBC_URL",
            "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");
    private static final String REDIS_URI = System.getenv().getOrDefault("REDIS_URL", "redis://127.0.0.1:6379");

    @Test
    void drainsEveryEntryWithTheDatabaseBackendAndWithRedis() throws Exception {
        PrintStream original = System.out;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        try {
            PlainJavaExample.main(new String[] {JDBC_URL, REDIS_URI, "120"});
        } finally {
            System.setOut(original);
        }
        assertThat(out.toString(StandardCharsets.UTF_8))
                .contains("database backend: delivered 120")
                .contains("redis backend: delivered 120");
        org.postgresql.ds.PGSimpleDataSource dataSource = new org.postgresql.ds.PGSimpleDataSource();
        dataSource.setUrl(JDBC_URL);
        assertThat(undelivered(dataSource)).as("rows of the example table not DELIVERED").isZero();
    }

    private static long undelivered(DataSource dataSource) throws Exception {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*) FROM example_outbox WHERE status <> 'DELIVERED'")) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
