package dev.leasebox.chaos.harness;

import dev.leasebox.chaos.history.HistoryEvent;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

/**
 * One chaos worker JVM ({@code ChaosWorkerMain}) and its history file. The JVM is started with
 * {@code java} itself — or through {@code setpriv}, which execs {@code java} in place, when the
 * worker needs its own group id for a partition rule — so its pid is the JVM's and SIGKILL/SIGSTOP
 * reach it.
 */
public final class WorkerProcess implements AutoCloseable {

    /** Where libfaketime lives on Debian (package {@code faketime} / {@code libfaketime}). */
    public static final Path LIBFAKETIME = Path.of("/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1");

    private final String owner;
    private final Path history;
    private final ChaosProcess process;
    private final List<HistoryEvent> seen = new ArrayList<>();
    private long offset;

    private WorkerProcess(String owner, Path history, ChaosProcess process) {
        this.owner = owner;
        this.history = history;
        this.process = process;
    }

    /**
     * How to start one worker.
     *
     * @param groupId        run the JVM with this group id (for nftables rules matching it), or 0
     * @param clockOffset    LD_PRELOAD libfaketime with this FAKETIME offset (e.g. {@code +6}), or null
     * @param writeLatency   hold each completion write this long (the pause injector's window)
     */
    public record Options(int groupId, String clockOffset, Duration writeLatency, boolean unsafeNoFence,
                          Path providerControl) {
        public static Options plain(Path providerControl) {
            return new Options(0, null, Duration.ZERO, false, providerControl);
        }
    }

    public static WorkerProcess start(String owner, Path runDir, OutboxDatabase db, Coordinator coordinator,
                                      Duration lease, Options options) {
        Path history = runDir.resolve("history-" + owner + ".jsonl");
        List<String> args = new ArrayList<>(List.of("--jdbc-url", db.workerUrl(), "--table", db.table().qualified(),
                "--backend", coordinator.backend(), "--owner", owner, "--lease-ms", Long.toString(lease.toMillis()),
                "--history", history.toString(), "--namespace", "chaos-" + db.schema()));
        if (coordinator.isExternal()) {
            args.add("--address");
            args.add(coordinator.address());
        }
        coordinator.backendOptions().forEach((k, v) -> {
            args.add("--backend-option");
            args.add(k + "=" + v);
        });
        if (options.providerControl() != null) {
            args.add("--provider-control");
            args.add(options.providerControl().toString());
        }
        if (!options.writeLatency().isZero()) {
            args.add("--write-latency-ms");
            args.add(Long.toString(options.writeLatency().toMillis()));
        }
        if (options.unsafeNoFence()) {
            args.add("--unsafe-no-fence");
        }
        List<String> command = new ArrayList<>();
        if (options.groupId() != 0) {
            command.addAll(List.of("setpriv", "--regid=" + options.groupId(), "--clear-groups", "--"));
        }
        command.addAll(ChaosProcess.javaCommand("dev.leasebox.chaos.worker.ChaosWorkerMain",
                List.of("-Dlogback.configurationFile=chaos-worker-logback.xml"), args));
        Map<String, String> env = new LinkedHashMap<>();
        if (options.clockOffset() != null) {
            // A fixed offset from the start: libfaketime's timestamp-file mode re-reads a file from every
            // thread and made JVM start-up hang here. Monotonic time stays real (the history's common clock).
            env.put("LD_PRELOAD", LIBFAKETIME.toString());
            env.put("FAKETIME", options.clockOffset());
            env.put("FAKETIME_DONT_FAKE_MONOTONIC", "1");
        }
        ChaosProcess process = ChaosProcess.start("worker-" + owner, command, env, runDir.resolve("worker-" + owner + ".log"));
        return new WorkerProcess(owner, history, process);
    }

    public String owner() {
        return owner;
    }

    public Path historyFile() {
        return history;
    }

    public ChaosProcess process() {
        return process;
    }

    /** Every complete line of the history so far (read incrementally: only new bytes are parsed). */
    public synchronized List<HistoryEvent> history() {
        try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(history)) {
            long size = ch.size();
            if (size > offset) {
                java.nio.ByteBuffer buffer = java.nio.ByteBuffer.allocate((int) (size - offset));
                ch.read(buffer, offset);
                String text = new String(buffer.array(), 0, buffer.position(), java.nio.charset.StandardCharsets.UTF_8);
                int end = text.lastIndexOf('\n');
                if (end >= 0) {
                    String complete = text.substring(0, end + 1);
                    offset += complete.getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
                    for (String line : complete.split("\n")) {
                        if (!line.isBlank()) {
                            try {
                                seen.add(HistoryEvent.parse(line));
                            } catch (IllegalArgumentException torn) {
                                // cannot happen for complete lines; skipped like the checker skips it
                            }
                        }
                    }
                }
            }
        } catch (java.nio.file.NoSuchFileException notYet) {
            return List.of();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException("cannot read history " + history + ": " + e.getMessage(), e);
        }
        return List.copyOf(seen);
    }

    /** Entries this worker's history says it holds now: claimed, and not yet completed, refused, lost or abandoned. */
    public Set<Long> heldEntries() {
        Map<Long, Long> held = new LinkedHashMap<>();
        for (HistoryEvent e : history()) {
            switch (e.kind()) {
                case HistoryEvent.CLAIM -> held.put(e.entry(), e.fence());
                case HistoryEvent.COMPLETED, HistoryEvent.REFUSED, HistoryEvent.LOST, HistoryEvent.ABANDONED ->
                        held.remove(e.entry());
                default -> {
                }
            }
        }
        return new LinkedHashSet<>(held.keySet());
    }

    /** Waits until an event after {@code sinceMillis} matches; the event, or empty after {@code timeout}. */
    public Optional<HistoryEvent> awaitEvent(long sinceMillis, Predicate<HistoryEvent> match, Duration timeout) {
        HistoryEvent[] found = {null};
        Poll.until(() -> {
            if (!process.isAlive()) {
                return true;
            }
            for (HistoryEvent e : history()) {
                if (e.t() >= sinceMillis && match.test(e)) {
                    found[0] = e;
                    return true;
                }
            }
            return false;
        }, Duration.ofMillis(20), timeout);
        return Optional.ofNullable(found[0]);
    }

    /** Whether the worker wrote its start line (it reached the database and the coordinator). */
    public boolean awaitStarted(Duration timeout) {
        return awaitEvent(0, e -> HistoryEvent.START.equals(e.kind()), timeout).isPresent() && process.isAlive();
    }

    @Override
    public void close() {
        process.terminate(Duration.ofSeconds(5));
    }
}
