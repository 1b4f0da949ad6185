package dev.leasebox.bench;

import dev.leasebox.cli.embedded.LoopbackPorts;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A throw-away {@code redis-server} for the bench: loopback only, a free port, no persistence
 * (neither RDB snapshots nor AOF, as a lease store that may lose its data needs none: fences are
 * re-floored from the outbox), killed by pid at {@link #close()}.
 */
final class RedisServerProcess implements AutoCloseable {

    private final Process process;
    private final int port;
    private final Path log;

    private RedisServerProcess(Process process, int port, Path log) {
        this.process = process;
        this.port = port;
        this.log = log;
    }

    /** The installed {@code redis-server}, if any on the PATH or in /usr/bin, /usr/local/bin. */
    static Optional<Path> binary() {
        String path = System.getenv("PATH");
        StringBuilder dirs = new StringBuilder(path == null ? "" : path);
        dirs.append(File.pathSeparator).append("/usr/bin").append(File.pathSeparator).append("/usr/local/bin");
        for (String dir : dirs.toString().split(File.pathSeparator)) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, "redis-server"))) {
                return Optional.of(Path.of(dir, "redis-server"));
            }
        }
        return Optional.empty();
    }

    /** Starts one and waits until it accepts connections (at most 10 s). */
    static RedisServerProcess start(Path binary) {
        int port = LoopbackPorts.free();
        try {
            Path dir = Files.createTempDirectory("leasebox-bench-redis-");
            Path log = dir.resolve("redis.log");
            Process process = new ProcessBuilder(List.of(binary.toString(), "--port", Integer.toString(port),
                    "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir.toString()))
                    .redirectErrorStream(true).redirectOutput(log.toFile()).start();
            RedisServerProcess server = new RedisServerProcess(process, port, log);
            server.awaitListening(Duration.ofSeconds(10));
            return server;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + binary + ": " + e.getMessage(), e);
        }
    }

    String uri() {
        return "redis://127.0.0.1:" + port;
    }

    long pid() {
        return process.pid();
    }

    private void awaitListening(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("redis-server exited at start (exit " + process.exitValue() + "); see " + log);
            }
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 200);
                return;
            } catch (IOException notYet) {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50)); // polling a port that is not open yet
            }
        }
        close();
        throw new IllegalStateException("redis-server did not listen on 127.0.0.1:" + port + " within " + timeout + "; see " + log);
    }

    /** Kills the server (SIGKILL, by pid) and waits for it to go. */
    @Override
    public void close() {
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
