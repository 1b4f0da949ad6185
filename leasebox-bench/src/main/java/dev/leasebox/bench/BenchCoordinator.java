package dev.leasebox.bench;

import dev.leasebox.claim.LeaseGrouping;
import dev.leasebox.cli.embedded.EmbeddedCoordinator;
import dev.leasebox.cli.embedded.EmbeddedCoordinators;
import dev.leasebox.lease.spi.LeaseBackendSettings;
import dev.leasebox.lease.spi.LeaseBackends;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * Where one backend's leases live during a bench run: a coordinator given by address, or one this
 * process started (ZooKeeper: an in-process server; Hazelcast: three in-process CP members; Redis: a
 * {@code redis-server} child process). Embedded coordinators share the bench machine's CPUs with the
 * workers and PostgreSQL, which the report says next to every figure.
 *
 * @param backend       the backend's name
 * @param address       what to hand the backend's {@code open}
 * @param clientOptions backend options a client of this coordinator needs (CP session settings, …)
 * @param description   one line for the report, e.g. "embedded zookeeper 127.0.0.1:38211"
 */
record BenchCoordinator(String backend, String address, Map<String, String> clientOptions, String description,
                        AutoCloseable stopper) implements AutoCloseable {

    /** The coordinator for {@code backend}: at {@code given} if present, else started here. */
    static BenchCoordinator start(String backend, Optional<String> given) {
        return start(backend, given, Map.of());
    }

    /**
     * The coordinator for {@code backend}: at {@code given} if present, else started here with
     * {@code embeddedOptions} ({@link EmbeddedCoordinators#start}'s options; ignored when given).
     */
    static BenchCoordinator start(String backend, Optional<String> given, Map<String, String> embeddedOptions) {
        if (given.isPresent()) {
            LeaseBackends.named(backend);
            return new BenchCoordinator(backend, given.get(), Map.of(), backend + " at " + given.get() + " (given)", () -> {
            });
        }
        if (backend.equals("redis")) {
            RedisServerProcess server = RedisServerProcess.start(RedisServerProcess.binary().orElseThrow(() ->
                    new IllegalArgumentException("no redis-server binary on the PATH to start one: install redis-server "
                            + "or give --redis redis://HOST:PORT")));
            return new BenchCoordinator(backend, server.uri(), Map.of(),
                    "embedded redis-server " + server.uri() + " (pid " + server.pid() + ", no persistence)", server);
        }
        if (!EmbeddedCoordinators.BACKENDS.contains(backend)) {
            throw new IllegalArgumentException("the " + backend + " backend cannot run embedded: give its address with --" + backend);
        }
        EmbeddedCoordinator embedded = EmbeddedCoordinators.start(backend, embeddedOptions);
        String shape = backend.equals("hazelcast") ? "three in-process CP members " : "in-process server ";
        return new BenchCoordinator(backend, embedded.address(), embedded.clientOptions(),
                "embedded " + backend + ", " + shape + embedded.address(), embedded);
    }

    /**
     * This coordinator with {@code options} added to its client options (a given option wins over the
     * embedded coordinator's own), named in its description so that every CSV row says what ran.
     */
    BenchCoordinator withOptions(Map<String, String> options) {
        if (options.isEmpty()) {
            return this;
        }
        Map<String, String> merged = new java.util.LinkedHashMap<>(clientOptions);
        merged.putAll(options);
        StringBuilder named = new StringBuilder(description).append("; options");
        options.forEach((k, v) -> named.append(' ').append(k).append('=').append(v));
        return new BenchCoordinator(backend, address, Map.copyOf(merged), named.toString(), stopper);
    }

    /**
     * Opens one lease manager with the client options and closes it, before any cell runs: a
     * misspelt or out-of-range {@code --backend-option}, or an unreachable coordinator, then fails the
     * bench at once with the backend's own message, not after the database cell.
     */
    void checkClientOptions(Duration leaseTtl) {
        LeaseGrouping.open(backend, new LeaseBackendSettings(address,
                "bench-check-" + UUID.randomUUID().toString().substring(0, 8), leaseTtl, clientOptions), java.time.Clock.systemUTC()).close();
    }

    @Override
    public void close() {
        try {
            stopper.close();
        } catch (Exception e) {
            // stopping on the way out: the run's figures are already written
        }
    }
}
