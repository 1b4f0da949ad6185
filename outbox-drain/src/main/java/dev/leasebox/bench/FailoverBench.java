package dev.leasebox.bench;

import dev.leasebox.jdbc.TableName;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The failover measurement: per backend and round, three worker JVMs ({@link FailoverWorker}) drain a
 * fresh table with a 20 ms provider; once all emit, the first is killed with SIGKILL right after it
 * reports an emission (mid-batch, so it holds recorded claims). The rows it
 * still claims are its orphans; for each, the failover time is from the kill to the first emission
 * of that row by another worker. The target is lease ttl + 1 s.
 */
final class FailoverBench {

    private static final int WORKERS = 3;
    private static final long EMIT_MILLIS = 20;

    /** One round's figures; {@code delaysMicros} sorted, one per orphan re-emitted. */
    record Round(String backend, int round, int orphans, long[] delaysMicros, int notReemitted) {
        double medianSeconds() {
            return Percentiles.nearestRank(delaysMicros, 50) / 1e6;
        }

        double maxSeconds() {
            return delaysMicros.length == 0 ? Double.NaN : delaysMicros[delaysMicros.length - 1] / 1e6;
        }
    }

    private final BenchDatabase database;
    private final Map<String, BenchCoordinator> coordinators;
    private final List<String> backends;
    private final Duration leaseTtl;
    private final int rounds;
    private final PrintWriter out;
    private final PrintWriter err;

    FailoverBench(BenchDatabase database, Map<String, BenchCoordinator> coordinators, List<String> backends,
                  Duration leaseTtl, int rounds, PrintWriter out, PrintWriter err) {
        this.database = database;
        this.coordinators = coordinators;
        this.backends = backends;
        this.leaseTtl = leaseTtl;
        this.rounds = rounds;
        this.out = out;
        this.err = err;
    }

    /** Runs every round; true when every orphan was re-emitted by another worker within ttl + 1 s. */
    boolean run() throws Exception {
        List<Round> all = new ArrayList<>();
        for (String backend : backends) {
            for (int round = 1; round <= rounds; round++) {
                Round r = round(backend, round);
                err.printf(Locale.ROOT, "[failover %s round %d] %d orphans, median %.2f s, max %.2f s, not re-emitted %d%n",
                        backend, round, r.orphans(), r.medianSeconds(), r.maxSeconds(), r.notReemitted());
                err.flush();
                all.add(r);
            }
        }
        double target = leaseTtl.toMillis() / 1000.0 + 1;
        out.printf(Locale.ROOT, "%nFailover: SIGKILL of a worker JVM holding leases -> first emission of its rows by another worker (lease ttl %d s, target <= %.0f s)%n",
                leaseTtl.toSeconds(), target);
        out.printf(Locale.ROOT, "%-10s %5s %7s %10s %10s %8s%n", "backend", "round", "orphans", "median s", "max s", "target");
        boolean ok = true;
        for (Round r : all) {
            boolean met = r.notReemitted() == 0 && r.orphans() > 0 && r.maxSeconds() <= target;
            ok &= met;
            out.printf(Locale.ROOT, "%-10s %5d %7d %10.2f %10.2f %8s%n", r.backend(), r.round(), r.orphans(),
                    r.medianSeconds(), r.maxSeconds(), met ? "met" : r.orphans() == 0 ? "no orphan" : "MISSED");
        }
        out.flush();
        return ok;
    }

    private Round round(String backend, int round) throws Exception {
        TableName table = database.freshTable();
        database.fill(table, 1, 100_000, Instant.now());
        String namespace = "failover-" + UUID.randomUUID().toString().substring(0, 8);
        List<WorkerProcess> workers = new ArrayList<>();
        try {
            for (int i = 1; i <= WORKERS; i++) {
                String owner = "failover-" + backend + "-" + round + "-" + i;
                workers.add(WorkerProcess.start(worker(backend, table, namespace, owner), owner));
            }
            CountDownLatch pacing = new CountDownLatch(1);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
            while (workers.stream().anyMatch(w -> w.emissions.size() < 20)) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("the " + backend + " failover workers did not all start emitting within 90 s; logs: "
                            + workers.stream().map(w -> w.log.toString()).toList());
                }
                pacing.await(100, TimeUnit.MILLISECONDS); // polling the workers' progress
            }
            WorkerProcess victim = workers.get(0);
            // kill mid-batch: right after the victim reports a new emission, so it holds claims that are recorded
            int seen = victim.emissions.size();
            long waitForEmission = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (victim.emissions.size() == seen && System.nanoTime() < waitForEmission) {
                pacing.await(2, TimeUnit.MILLISECONDS);
            }
            long killedAt = nowMicros();
            victim.process.destroyForcibly(); // SIGKILL
            victim.process.waitFor(10, TimeUnit.SECONDS);
            List<Long> orphans = database.claimedBy(table, victim.owner);
            long giveUp = System.nanoTime() + leaseTtl.toNanos() + TimeUnit.SECONDS.toNanos(30);
            while (System.nanoTime() < giveUp && !allReemitted(orphans, workers, killedAt)) {
                pacing.await(100, TimeUnit.MILLISECONDS);
            }
            List<Long> delays = new ArrayList<>();
            int missing = 0;
            for (long id : orphans) {
                long first = firstAfter(id, workers, killedAt);
                if (first < 0) {
                    missing++;
                } else {
                    delays.add(first - killedAt);
                }
            }
            return new Round(backend, round, orphans.size(), delays.stream().mapToLong(Long::longValue).sorted().toArray(), missing);
        } finally {
            workers.forEach(WorkerProcess::kill);
            database.drop(table);
        }
    }

    private List<String> worker(String backend, TableName table, String namespace, String owner) {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-XX:+UseSerialGC", "-cp", System.getProperty("java.class.path"), FailoverWorker.class.getName(),
                database.jdbcUrl(), table.qualified(), backend));
        BenchCoordinator c = coordinators.get(backend);
        command.add(c == null ? "-" : c.address());
        command.add(namespace);
        command.add(Long.toString(leaseTtl.toSeconds()));
        command.add(owner);
        command.add(Long.toString(EMIT_MILLIS));
        if (c != null) {
            c.clientOptions().forEach((k, v) -> command.add(k + "=" + v));
        }
        return command;
    }

    private static boolean allReemitted(List<Long> orphans, List<WorkerProcess> workers, long killedAt) {
        return orphans.stream().allMatch(id -> firstAfter(id, workers, killedAt) >= 0);
    }

    /** The first emission of {@code id} by a surviving worker after {@code killedAt}, or -1. */
    private static long firstAfter(long id, List<WorkerProcess> workers, long killedAt) {
        long first = -1;
        for (WorkerProcess w : workers.subList(1, workers.size())) {
            Long at = w.emissions.get(id);
            if (at != null && at >= killedAt && (first < 0 || at < first)) {
                first = at;
            }
        }
        return first;
    }

    private static long nowMicros() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000 + now.getNano() / 1_000;
    }

    /** A worker JVM and the latest emission time it reported per entry. */
    private static final class WorkerProcess {
        final Process process;
        final String owner;
        final Path log;
        final Map<Long, Long> emissions = new ConcurrentHashMap<>();

        private WorkerProcess(Process process, String owner, Path log) {
            this.process = process;
            this.owner = owner;
            this.log = log;
        }

        static WorkerProcess start(List<String> command, String owner) throws IOException {
            Path log = Files.createTempFile("leasebox-failover-" + owner + "-", ".log");
            Process process = new ProcessBuilder(command).redirectError(log.toFile()).start();
            WorkerProcess worker = new WorkerProcess(process, owner, log);
            Thread reader = new Thread(worker::read, "leasebox-failover-reader-" + owner);
            reader.setDaemon(true);
            reader.start();
            return worker;
        }

        private void read() {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                    if (line.startsWith("EMIT ")) {
                        String[] parts = line.split(" ");
                        emissions.merge(Long.parseLong(parts[1]), Long.parseLong(parts[2]), Math::min);
                    }
                }
            } catch (IOException | RuntimeException e) {
                // the process was killed: its output ends here
            }
        }

        void kill() {
            process.destroyForcibly();
            try {
                process.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
