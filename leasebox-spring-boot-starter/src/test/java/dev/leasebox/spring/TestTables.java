package dev.leasebox.spring;

import dev.leasebox.jdbc.DatabaseKind;
import dev.leasebox.jdbc.LeaseboxSchema;
import dev.leasebox.jdbc.TableName;
import org.postgresql.ds.PGSimpleDataSource;

import redis.clients.jedis.RedisClient;

import java.net.URI;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HexFormat;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/** The PostgreSQL of this machine, with outbox tables of unique names per test. */
final class TestTables {

    static final String JDBC_URL = System.getenv().getOrDefault("LEASEBOX_JDBC_URL",
            "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");
    static final String REDIS_URI = System.getenv().getOrDefault("REDIS_URL", "redis://127.0.0.1:6379");

    private TestTables() {
    }

    static PGSimpleDataSource dataSource() {
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setUrl(JDBC_URL);
        return ds;
    }

    static String uniqueName(String prefix) {
        byte[] random = new byte[4];
        ThreadLocalRandom.current().nextBytes(random);
        return prefix + "_" + HexFormat.of().formatHex(random);
    }

    /** A new outbox table with migrations V1 to {@code version}. */
    static String outbox(int version) {
        String name = uniqueName("sb_outbox");
        new LeaseboxSchema(DatabaseKind.POSTGRESQL, TableName.parse(name)).apply(dataSource(), 1, version);
        return name;
    }

    static void dropOutbox(String table) throws SQLException {
        execute("DROP TABLE IF EXISTS " + table + ", " + table + "_claim_styles, " + table + "_lease_slots, "
                + table + "_workers, " + table + "_leases CASCADE");
        execute("DROP SEQUENCE IF EXISTS " + table + "_claim_token_seq, " + table + "_lease_fence_seq");
    }

    /** Deletes the Redis keys of namespaces a test used (the fence counter outlives the leases). */
    static void deleteRedisNamespaces(String... namespaces) {
        try (RedisClient redis = RedisClient.create(URI.create(REDIS_URI))) {
            for (String namespace : namespaces) {
                Set<String> keys = redis.keys(namespace + ":*");
                if (!keys.isEmpty()) {
                    redis.del(keys.toArray(String[]::new));
                }
            }
        }
    }

    static void execute(String sql) throws SQLException {
        try (Connection c = dataSource().getConnection(); Statement st = c.createStatement()) {
            st.execute(sql);
        }
    }

    static long count(String sql) throws SQLException {
        try (Connection c = dataSource().getConnection(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
