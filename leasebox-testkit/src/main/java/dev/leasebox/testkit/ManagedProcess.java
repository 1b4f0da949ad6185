package dev.leasebox.testkit;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.awaitility.Awaitility.await;

/**
 * A real operating-system process started by a test (a redis-server, a ZooKeeper server JVM, a
 * worker JVM), controlled by pid: SIGKILL, SIGSTOP/SIGCONT, and stopped for good by
 * {@link #close()}. Output goes to a log file that failures can point at.
 */
public final class ManagedProcess implements AutoCloseable {

    private final String name;
    private final Process process;
    private final Path log;

    private ManagedProcess(String name, Process process, Path log) {
        this.name = name;
        this.process = process;
        this.log = log;
    }

    /** Starts {@code command}, its output appended to a temp log file. */
    public static ManagedProcess start(String name, List<String> command) {
        try {
            Path log = Files.createTempFile("leasebox-" + name + "-", ".log");
            Process process = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                    .start();
            return new ManagedProcess(name, process, log);
        } catch (IOException e) {
            throw new UncheckedIOException("could not start " + name + ": " + String.join(" ", command), e);
        }
    }

    /**
     * Starts {@code mainClass} in a new JVM on this JVM's class path: the way tests run a
     * ZooKeeper server, a Hazelcast member or a lease-holding worker in a process they can kill.
     */
    public static ManagedProcess startJava(String name, Class<?> mainClass, List<String> jvmArgs, List<String> args) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx512m");
        command.addAll(jvmArgs);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(mainClass.getName());
        command.addAll(args);
        return start(name, command);
    }

    /** Waits until the process accepts connections on 127.0.0.1:{@code port}, failing fast if it dies. */
    public ManagedProcess awaitListening(int port, Duration timeout) {
        await(name + " listening on 127.0.0.1:" + port + " (log " + log + ")")
                .atMost(timeout).pollInterval(Duration.ofMillis(50))
                .until(() -> {
                    if (!process.isAlive()) {
                        throw new IllegalStateException(name + " exited with " + process.exitValue() + "; log:\n" + logTail());
                    }
                    return LoopbackPorts.isListening(port);
                });
        return this;
    }

    /** Waits up to {@code timeout} for the process to exit by itself; returns its exit code. */
    public int awaitExit(Duration timeout) {
        try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException(name + " (pid " + process.pid() + ") still running after " + timeout
                        + "; log " + log + ":\n" + logTail());
            }
            return process.exitValue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    public long pid() {
        return process.pid();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    public Path log() {
        return log;
    }

    /** The last lines of the process's output, for failure messages. */
    public String logTail() {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        } catch (IOException e) {
            return "(log unreadable: " + e.getMessage() + ")";
        }
    }

    /** SIGKILL, and waits for the process to be gone. */
    public void kill() {
        signal("KILL");
        waitFor();
    }

    /** SIGTERM: asks the process to stop gracefully (a JVM runs its shutdown hooks); does not wait. */
    public void terminate() {
        signal("TERM");
    }

    /** SIGSTOP: the process freezes, holding its sockets open. */
    public void pause() {
        signal("STOP");
    }

    /** SIGCONT after {@link #pause()}. */
    public void resume() {
        signal("CONT");
    }

    private void signal(String signal) {
        if (!process.isAlive()) {
            return;
        }
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid()))
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new IllegalStateException("kill -" + signal + " " + process.pid() + " failed");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private void waitFor() {
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException(name + " (pid " + process.pid() + ") did not exit");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Stops the process for good (resumed first if paused, then SIGKILL), and every child of it. */
    @Override
    public void close() {
        if (process.isAlive()) {
            signal("CONT");
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
            waitFor();
        }
    }

    /** A fresh temporary directory for a server's data. */
    public static File tempDir(String prefix) {
        try {
            return Files.createTempDirectory("leasebox-" + prefix + "-").toFile();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
