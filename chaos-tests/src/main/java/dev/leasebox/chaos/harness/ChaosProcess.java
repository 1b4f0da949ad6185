package dev.leasebox.chaos.harness;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A real process the harness started (a worker JVM, a redis-server, a ZooKeeper or Hazelcast JVM),
 * controlled by its pid: SIGKILL, SIGSTOP/SIGCONT, SIGTERM. The command is executed directly, never
 * through a shell, so the pid is the process itself and a signal reaches it. Output goes to a log
 * file in the run directory. {@link #close()} always ends it (resumed first if stopped).
 */
public final class ChaosProcess implements AutoCloseable {

    private final String name;
    private final Process process;
    private final Path log;

    private ChaosProcess(String name, Process process, Path log) {
        this.name = name;
        this.process = process;
        this.log = log;
    }

    /**
     * Starts {@code command} with this JVM's environment changed by {@code env} (a null value removes
     * that variable), output appended to {@code log}.
     */
    public static ChaosProcess start(String name, List<String> command, Map<String, String> env, Path log) {
        try {
            Files.createDirectories(log.toAbsolutePath().getParent());
            ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
            env.forEach((key, value) -> {
                if (value == null) {
                    builder.environment().remove(key);
                } else {
                    builder.environment().put(key, value);
                }
            });
            return new ChaosProcess(name, builder.start(), log);
        } catch (IOException e) {
            throw new UncheckedIOException("could not start " + name + " (" + String.join(" ", command) + "): "
                    + e.getMessage(), e);
        }
    }

    /** The command that runs {@code mainClass} in a new JVM on this JVM's class path. */
    public static List<String> javaCommand(String mainClass, List<String> jvmArgs, List<String> args) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx256m");
        command.add("-XX:+UseSerialGC");
        command.add("-XX:TieredStopAtLevel=1");
        command.addAll(jvmArgs);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(mainClass);
        command.addAll(args);
        return command;
    }

    public String name() {
        return name;
    }

    public long pid() {
        return process.pid();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** The exit code of a process that has exited. */
    public int exitCode() {
        return process.exitValue();
    }

    public Path log() {
        return log;
    }

    /** Waits until something accepts connections on {@code host:port}; fails with the log's tail if this process dies. */
    public ChaosProcess awaitListening(String host, int port, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException(name + " exited with " + process.exitValue() + " before listening on "
                        + host + ":" + port + "; log " + log + ":\n" + logTail());
            }
            if (isListening(host, port)) {
                return this;
            }
            Poll.pause(Duration.ofMillis(50));
        }
        throw new IllegalStateException(name + " not listening on " + host + ":" + port + " after " + timeout + "; log "
                + log + ":\n" + logTail());
    }

    /** SIGKILL, then waits until the process is gone. */
    public void kill() {
        process.destroyForcibly();
        waitFor(Duration.ofSeconds(30));
    }

    /** SIGSTOP: the process freezes, its sockets open, its timers stopped. */
    public void pause() {
        signal("STOP");
    }

    /** SIGCONT after {@link #pause()}. */
    public void resume() {
        signal("CONT");
    }

    /** SIGTERM (graceful), then SIGKILL if still alive after {@code grace}. */
    public void terminate(Duration grace) {
        if (!process.isAlive()) {
            return;
        }
        signal("CONT");
        process.destroy();
        try {
            if (!process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
                kill();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            kill();
        }
    }

    /**
     * Sends {@code signal} (e.g. {@code QUIT}: PostgreSQL's immediate shutdown) and waits until the process is gone;
     * SIGKILL if it is still there after {@code timeout}.
     */
    public void signalAndWait(String signal, Duration timeout) {
        signal(signal);
        try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                kill();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            kill();
        }
    }

    private void signal(String signal) {
        if (!process.isAlive()) {
            return;
        }
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid()))
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new IllegalStateException("kill -" + signal + " " + process.pid() + " (" + name + ") failed");
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run kill -" + signal + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while signalling " + name, e);
        }
    }

    private void waitFor(Duration timeout) {
        try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException(name + " (pid " + process.pid() + ") did not exit after SIGKILL");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for " + name, e);
        }
    }

    public String logTail() {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
        } catch (IOException e) {
            return "(log unreadable: " + e.getMessage() + ")";
        }
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            try {
                signal("CONT");
            } catch (RuntimeException ignored) {
                // it is being killed anyway
            }
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
            waitFor(Duration.ofSeconds(30));
        }
    }

    public static boolean isListening(String host, int port) {
        try (Socket socket = new Socket(host, port)) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
