package example.springboot;

import com.sun.net.httpserver.HttpServer;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import redis.clients.jedis.RedisClient;

import javax.sql.DataSource;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;

/**
 * One test class's run of the example: tables and a Redis namespace unique to it, and an HTTP receiver (the JDK's
 * server on a free loopback port) as the drain's target, recording what it was sent.
 */
final class ExampleRun {

    static final String REDIS_URI = System.getenv().getOrDefault("REDIS_URL", "redis://127.0.0.1:6379");

    final String orders;
    final String outbox;
    final String namespace;
    /** Request bodies received, by Idempotency-Key. */
    final Map<String, String> received = new ConcurrentHashMap<>();
    final Map<String, String> contentTypes = new ConcurrentHashMap<>();
    final Map<String, Integer> deliveries = new ConcurrentHashMap<>();
    private final HttpServer receiver;

    ExampleRun(String prefix) {
        String run = randomHex();
        orders = prefix + "_orders_" + run;
        outbox = prefix + "_outbox_" + run;
        namespace = prefix.replace('_', '-') + "-" + run;
        receiver = startReceiver();
    }

    /** The example's settings pointed at this run's tables, namespace and receiver, with the given lease backend. */
    void properties(DynamicPropertyRegistry registry, String backend) {
        properties(registry, backend, () -> "http:http://127.0.0.1:" + receiver.getAddress().getPort() + "/events");
    }

    /** The same, draining to {@code provider} (a {@code leasebox.provider} value) in place of the receiver. */
    void properties(DynamicPropertyRegistry registry, String backend, Supplier<Object> provider) {
        registry.add("spring.datasource.url", () -> System.getenv().getOrDefault("LEASEBOX_JDBC_URL",
                "jdbc:postgresql://127.0.0.1:5432/test?user=postgres"));
        registry.add("leasebox.backend", () -> backend);
        registry.add("leasebox.redis.uri", () -> REDIS_URI);
        registry.add("leasebox.provider", provider);
        registry.add("example.orders-table", () -> orders);
        registry.add("leasebox.table", () -> outbox);
        registry.add("leasebox.namespace", () -> namespace);
    }

    /** Drops the run's tables and Redis keys: call it after the drain has stopped, before the pool closes. */
    void drop(DataSource dataSource) {
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        jdbc.execute("DROP TABLE IF EXISTS " + orders + ", " + outbox + ", " + outbox + "_claim_styles, "
                + outbox + "_lease_slots, " + outbox + "_workers, " + outbox + "_leases CASCADE");
        jdbc.execute("DROP SEQUENCE IF EXISTS " + outbox + "_claim_token_seq, " + outbox + "_lease_fence_seq");
        // the namespace's fence counter outlives the leases
        try (RedisClient redis = RedisClient.create(URI.create(REDIS_URI))) {
            Set<String> keys = redis.keys(namespace + ":*");
            if (!keys.isEmpty()) {
                redis.del(keys.toArray(String[]::new));
            }
        }
    }

    void stopReceiver() {
        receiver.stop(0);
    }

    /** The Actuator's {@code /actuator/health/leasebox} as an operator's probe reads it. */
    static HttpResponse<String> leaseboxHealth(int port) throws IOException, InterruptedException {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + port + "/actuator/health/leasebox")).build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpServer startReceiver() {
        try {
            HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
            server.createContext("/events", exchange -> {
                String key = exchange.getRequestHeaders().getFirst("Idempotency-Key");
                String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
                if (key != null) {
                    received.put(key, body);
                    deliveries.merge(key, 1, Integer::sum);
                    contentTypes.put(key, String.valueOf(exchange.getRequestHeaders().getFirst("Content-Type")));
                }
                exchange.sendResponseHeaders(key == null ? 400 : 204, -1);
                exchange.close();
            });
            server.start();
            return server;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String randomHex() {
        byte[] random = new byte[4];
        ThreadLocalRandom.current().nextBytes(random);
        return HexFormat.of().formatHex(random);
    }
}
