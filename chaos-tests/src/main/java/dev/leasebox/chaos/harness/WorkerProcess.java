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

    /** Rows each worker claims per batch ({@code --batch}). */
    public static final int BATCH = 20;

    private final String owner;
    private final Path history;
    private final ChaosProcess process;
    private final long spawnedAtMillis;
    private final List<HistoryEvent> seen = new ArrayList<>();
    private long offset;

    private WorkerProcess(String owner, Path history, ChaosProcess process, long spawnedAtMillis) {
        this.owner = owner;
        this.history = history;
        this.process = process;
        this.spawnedAtMillis = spawnedAtMillis;
    }

    /**
     * How to start one worker.
     *
     * @param groupId        run the JVM with this group id (for nftables rules matching it), or 0
     * @param clockFile      LD_PRELOAD libfaketime with its wall-clock offset read from this file (one line such
     *                       as {@code +0} or {@code +6}, re-read at most every second: write it to step the
     *                       running worker's clock), or null for the real clock; see {@link #fakeClockEnvironment}
     * @param writeLatency   hold each completion write this long (the pause injector's window)
     * @param quickTimeouts  the coordinator's short-operation options ({@link Coordinator#quickTimeouts}): calls
     *                       that cannot reach it fail within a short cut instead of outlasting it
     * @param faultRules     Byteman rules ({@link FaultRules}) the JVM loads as a Java agent, their fault points
     *                       driven from {@link #faultPoints}; null for none
     */
    public record Options(int groupId, Path clockFile, Duration writeLatency, boolean unsafeNoFence,
                          Path providerControl, boolean quickTimeouts, Path faultRules) {

        public Options(int groupId, Path clockFile, Duration writeLatency, boolean unsafeNoFence, Path providerControl,
                       boolean quickTimeouts) {
            this(groupId, clockFile, writeLatency, unsafeNoFence, providerControl, quickTimeouts, null);
        }

        public Options(int groupId, Path clockFile, Duration writeLatency, boolean unsafeNoFence, Path providerControl) {
            this(groupId, clockFile, writeLatency, unsafeNoFence, providerControl, false);
        }

        /** These options, the JVM loading {@code rules}. */
        public Options withFaultRules(Path rules) {
            return new Options(groupId, clockFile, writeLatency, unsafeNoFence, providerControl, quickTimeouts, rules);
        }

        public static Options plain(Path providerControl) {
            return new Options(0, null, Duration.ZERO, false, providerControl);
        }
    }

    public static WorkerProcess start(String owner, Path runDir, OutboxDatabase db, Coordinator coordinator,
                                      Duration lease, Granularity granularity, Options options) {
        return start(owner, runDir, db, coordinator, lease, granularity, options, "");
    }

    /** As above, the worker sending to {@code providerSpec} ({@code --provider}) unless it is empty (the jdbc-inbox). */
    public static WorkerProcess start(String owner, Path runDir, OutboxDatabase db, Coordinator coordinator,
                                      Duration lease, Granularity granularity, Options options, String providerSpec) {
        Path history = runDir.resolve("history-" + owner + ".jsonl");
        List<String> args = new ArrayList<>(List.of("--jdbc-url", db.workerUrl(owner), "--table", db.table().qualified(),
                "--backend", coordinator.backend(), "--owner", owner, "--lease-ttl", lease.toMillis() + "ms",
                "--history", history.toString(), "--namespace", "chaos-" + db.schema(), "--batch", Integer.toString(BATCH)));
        args.addAll(granularity.workerArgs());
        if (coordinator.isExternal()) {
            args.add("--" + coordinator.backend()); // the address under the backend's name, as leasebox worker takes it
            args.add(coordinator.address());
        }
        Map<String, String> backendOptions = new LinkedHashMap<>(coordinator.backendOptions());
        if (coordinator.isExternal()) {
            backendOptions.putAll(granularity.groupingOptions());
        }
        if (options.quickTimeouts()) {
            backendOptions.putAll(coordinator.quickTimeouts());
        }
        backendOptions.forEach((k, v) -> {
            args.add("--backend-option");
            args.add(k + "=" + v);
        });
        if (!providerSpec.isEmpty()) {
            args.add("--provider");
            args.add(providerSpec);
        }
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
        List<String> jvmArgs = new ArrayList<>(List.of("-Dlogback.configurationFile=chaos-worker-logback.xml"));
        if (options.faultRules() != null) {
            jvmArgs.addAll(FaultRules.agentArguments(options.faultRules(), faultPoints(runDir)));
        }
        command.addAll(ChaosProcess.javaCommand("dev.leasebox.chaos.worker.ChaosWorkerMain", jvmArgs, args));
        Map<String, String> env = options.clockFile() == null ? Map.of() : fakeClockEnvironment(options.clockFile());
        long spawnedAt = System.currentTimeMillis();
        ChaosProcess process = ChaosProcess.start("worker-" + owner, command, env, runDir.resolve("worker-" + owner + ".log"));
        return new WorkerProcess(owner, history, process, spawnedAt);
    }

    /** The directory through which the harness drives the fault points of a run's workers ({@code FaultPoints}). */
    public static Path faultPoints(Path runDir) {
        return runDir.resolve("fault-points");
    }

    /**
     * The environment that LD_PRELOADs libfaketime into a JVM so that its wall clock (the
     * {@code CLOCK_REALTIME} behind {@code System.currentTimeMillis} and {@code Instant.now}) runs at the
     * offset written in {@code clockFile}, while everything timed on the monotonic clock stays real:
     *
     * <ul>
     *   <li>{@code FAKETIME_TIMESTAMP_FILE} + {@code FAKETIME_CACHE_DURATION=1}: the offset is re-read from
     *       the file at most once a second, so a harness can step a running JVM's clock ({@code FAKETIME}
     *       is removed from the inherited environment: when set, libfaketime ignores the file);</li>
     *   <li>{@code FAKETIME_DONT_FAKE_MONOTONIC=1}: {@code System.nanoTime}, and so the history's common
     *       clock and every JVM timeout, stay real and never jump with a step;</li>
     *   <li>{@code FAKETIME_FORCE_MONOTONIC_FIX=0}: libfaketime 0.9.10 on glibc 2.30 and later otherwise
     *       "fixes" every {@code pthread_cond_timedwait} on a monotonic condition variable by subtracting
     *       its faked monotonic time, which under an offset is the faked wall clock (about 1.8e9 s) even
     *       with monotonic faking off. Every JVM timed wait (Thread.sleep, LockSupport.parkNanos,
     *       Object.wait with a timeout) then times out at once and spins, each spin a wall-clock call
     *       through libfaketime's global lock: a worker JVM (Hazelcast or Redis alike) burnt both cores
     *       and took 20–42 s to reach its start line instead of 2–4 s. Without the fix the deadline
     *       reaches glibc unchanged, which is right because the monotonic clock is not faked.</li>
     * </ul>
     */
    public static Map<String, String> fakeClockEnvironment(Path clockFile) {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("LD_PRELOAD", LIBFAKETIME.toString());
        env.put("FAKETIME", null);
        env.put("FAKETIME_TIMESTAMP_FILE", clockFile.toAbsolutePath().toString());
        env.put("FAKETIME_CACHE_DURATION", "1");
        env.put("FAKETIME_DONT_FAKE_MONOTONIC", "1");
        env.put("FAKETIME_FORCE_MONOTONIC_FIX", "0");
        return env;
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

    /**
     * Seconds from spawning the JVM to its start line (on the common clock, which is the harness's
     * wall clock on this machine), or -1 while it has written none.
     */
    public double secondsToStart() {
        for (HistoryEvent e : history()) {
            if (HistoryEvent.START.equals(e.kind())) {
                return (e.t() - spawnedAtMillis) / 1000.0;
            }
        }
        return -1;
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
