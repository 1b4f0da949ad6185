package dev.leasebox.lease.redis;

import dev.leasebox.testkit.LoopbackPorts;
import dev.leasebox.testkit.ManagedProcess;
import dev.leasebox.testkit.RequiredServer;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The Redis a test talks to, found the {@link RequiredServer} way: {@code REDIS_URL} if set; else a
 * {@code redis-server} this fixture starts on a free loopback port without persistence (stopped by
 * {@link #close()}); else a Testcontainers container where Docker answers; else a loud failure.
 * Tests that kill, restart or configure the server use {@link #startLocal(String...)}, which always
 * starts a process of their own.
 */
final class RedisTestServer implements AutoCloseable {

    private static final String INSTALL = "apt-get install redis-server";

    private final String uri;
    private final int port;
    private final List<String> command;
    private ManagedProcess process;
    private Runnable stopContainer;

    private RedisTestServer(String uri, int port, List<String> command) {
        this.uri = uri;
        this.port = port;
        this.command = command;
    }

    /** Any Redis the tests may share (keys are namespaced per test class). */
    static RedisTestServer required() {
        Optional<String> fromEnvironment = RequiredServer.fromEnvironment("REDIS_URL");
        if (fromEnvironment.isPresent()) {
            URI parsed = URI.create(fromEnvironment.get());
            return new RedisTestServer(fromEnvironment.get(), parsed.getPort() == -1 ? 6379 : parsed.getPort(), List.of());
        }
        if (redisServerBinary().isPresent()) {
            return startLocal();
        }
        if (RequiredServer.dockerAvailable()) {
            return RedisContainer.start();
        }
        throw RequiredServer.missing("Redis", "REDIS_URL", INSTALL);
    }

    /** A redis-server process of this test's own, on a free port, empty and without persistence. */
    static RedisTestServer startLocal(String... extraArguments) {
        Path binary = redisServerBinary().orElseThrow(() ->
                RequiredServer.missing("redis-server (a process this test can kill and restart)", "PATH", INSTALL));
        int port = LoopbackPorts.free();
        List<String> command = new ArrayList<>(List.of(binary.toString(), "--port", Integer.toString(port),
                "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"));
        command.addAll(List.of(extraArguments));
        RedisTestServer server = new RedisTestServer("redis://127.0.0.1:" + port, port, List.copyOf(command));
        server.launch();
        return server;
    }

    /**
     * A redis-server of this test's own that speaks only TLS, on a free port, presenting
     * {@code certificate} (also its CA, so self-signed works) and not asking clients for one.
     */
    static RedisTestServer startLocalTls(Path certificate, Path key) {
        Path binary = redisServerBinary().orElseThrow(() -> RequiredServer.missing("redis-server", "PATH", INSTALL));
        int port = LoopbackPorts.free();
        List<String> command = List.of(binary.toString(), "--port", "0", "--tls-port", Integer.toString(port),
                "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                "--tls-cert-file", certificate.toString(), "--tls-key-file", key.toString(),
                "--tls-ca-cert-file", certificate.toString(), "--tls-auth-clients", "no");
        RedisTestServer server = new RedisTestServer("rediss://127.0.0.1:" + port, port, command);
        server.launch();
        return server;
    }

    static RedisTestServer ofContainer(String uri, int port, Runnable stopContainer) {
        RedisTestServer server = new RedisTestServer(uri, port, List.of());
        server.stopContainer = stopContainer;
        return server;
    }

    private static Optional<Path> redisServerBinary() {
        return RequiredServer.binary("redis-server", "/usr/bin/redis-server", "/usr/local/bin/redis-server");
    }

    private void launch() {
        process = ManagedProcess.start("redis-" + port, command).awaitListening(port, Duration.ofSeconds(20));
    }

    /** {@code redis://127.0.0.1:<port>}, without credentials. */
    String uri() {
        return uri;
    }

    int port() {
        return port;
    }

    /** SIGKILL: Redis dies with no chance to save anything (it has no persistence anyway). */
    void kill() {
        requireOwnProcess().kill();
    }

    /** Starts the same command again on the same port: an empty Redis, as after a crash without persistence. */
    void restartEmpty() {
        requireOwnProcess();
        launch();
    }

    /** A single admin connection (INFO, CONFIG, ACL), authenticated as {@code user}/{@code password} when given. */
    Jedis admin(String user, String password) {
        DefaultJedisClientConfig.Builder config = DefaultJedisClientConfig.builder().socketTimeoutMillis(5000);
        if (user != null) {
            config.user(user);
        }
        if (password != null) {
            config.password(password);
        }
        if (process == null && stopContainer == null) {
            return new Jedis(URI.create(uri));
        }
        return new Jedis(new HostAndPort(URI.create(uri).getHost(), port), config.build());
    }

    Jedis admin() {
        return admin(null, null);
    }

    private ManagedProcess requireOwnProcess() {
        if (process == null) {
            throw new IllegalStateException("this Redis (" + uri + ") was not started by the test; use startLocal()");
        }
        return process;
    }

    @Override
    public void close() {
        if (process != null) {
            process.close();
        }
        if (stopContainer != null) {
            stopContainer.run();
        }
    }
}
