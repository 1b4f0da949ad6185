package dev.leasebox.bench;

import dev.leasebox.lease.spi.Durations;
import dev.leasebox.jdbc.TableName;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The failover measurement: per backend and round, three worker JVMs ({@link FailoverWorker}) drain a
 * fresh table with a 20 ms provider; once all emit, the first is killed with SIGKILL right after it
 * reports an emission (mid-batch, so it holds recorded claims). The rows it
 * still claims are its orphans; for each, the failover time is from the kill to the first emission
 * of that row by another worker, broken into phases from the workers' traces ({@link FailoverTrace}):
 * what was left of the claim, candidate selection, waiting for the coordinator's grant, and the
 * orphan's turn in its batch. The target is lease ttl + 1 s; for Hazelcast, whose crashed clients'
 * locks are freed only by CP session expiry, session TTL + 1 s ({@link #targetSeconds}).
 */
final class FailoverBench {

    private static final int WORKERS = 3;
    private static final long EMIT_MILLIS = 20;

    /**
     * One orphan's failover, in epoch microseconds: killed at {@code killedAt}; its claim as recorded
     * expired at {@code expiresAt}; a surviving worker first asked for its lease at {@code requested}
     * and was first granted it at {@code granted} (for the database backend, whose claim statement
     * asks and grants at once, both are the claim's return); it was first emitted at {@code emitted}.
     * {@code refusedRequests} counts the survivors' requests for it that were not granted. A phase
     * not reached is -1. {@code nextCycle} is when a survivor first asked for any lease (database:
     * claimed any rows) at or after the expiry: selection is that wait for a claim cycle, then the
     * draw of candidates that may leave the orphan for a later cycle.
     */
    record Orphan(long id, long killedAt, long expiresAt, long nextCycle, long requested, long granted, long emitted,
                  int refusedRequests) {

        boolean reemitted() {
            return emitted >= 0;
        }

        long delayMicros() {
            return emitted - killedAt;
        }

        /** Kill to the claim's recorded expiry: what was left of the dead holder's lease. */
        long expiryMicros() {
            return expiresAt - killedAt;
        }

        /** Expiry to the first request by a survivor: candidate selection and claim-loop pacing. */
        long selectionMicros() {
            return requested - expiresAt;
        }

        /** Expiry to the next claim cycle of any survivor: the survivors were busy with their batches. */
        long cycleWaitMicros() {
            return nextCycle - expiresAt;
        }

        /** First request to grant: the coordinator not granting yet (or a lost race with the other survivor). */
        long leaseMicros() {
            return granted - requested;
        }

        /** Grant to emission: recording the claim, then the orphan's turn in its batch. */
        long emitMicros() {
            return emitted - granted;
        }
    }

    /** One round's figures; {@code delaysMicros} sorted, one per orphan re-emitted. */
    record Round(String backend, int round, int orphans, long[] delaysMicros, int notReemitted, List<Orphan> detail) {

        Round(String backend, int round, int orphans, long[] delaysMicros, int notReemitted) {
            this(backend, round, orphans, delaysMicros, notReemitted, List.of());
        }

        double medianSeconds() {
            return Percentiles.nearestRank(delaysMicros, 50) / 1e6;
        }

        double maxSeconds() {
            return delaysMicros.length == 0 ? Double.NaN : delaysMicros[delaysMicros.length - 1] / 1e6;
        }

        /** The median of one phase over the re-emitted orphans, in seconds. */
        double medianSeconds(java.util.function.ToLongFunction<Orphan> phase) {
            long[] values = detail.stream().filter(Orphan::reemitted).mapToLong(phase).sorted().toArray();
            return Percentiles.nearestRank(values, 50) / 1e6;
        }

        /** The re-emitted orphan that took longest, if any. */
        java.util.Optional<Orphan> worst() {
            return detail.stream().filter(Orphan::reemitted).max(java.util.Comparator.comparingLong(Orphan::delayMicros));
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

    /**
     * The embedded coordinator options a failover run wants: Hazelcast's CP members get a session TTL
     * of lease ttl + 1 s with a 1 s heartbeat, the shortest the lease manager accepts for that ttl and
     * what its start-up warning recommends, since a crashed client's locks are freed only when its CP
     * session expires. Other backends need nothing.
     */
    static Map<String, String> embeddedOptions(String backend, Duration leaseTtl) {
        if (!backend.equals("hazelcast")) {
            return Map.of();
        }
        long seconds = (leaseTtl.toMillis() + 999) / 1000;
        return Map.of("session-ttl", (seconds + 1) + "s", "heartbeat", "1s");
    }

    /**
     * The failover target for {@code backend}, in seconds: lease ttl + 1 s; for Hazelcast, when its
     * CP session TTL is known and longer than the lease, session TTL + 1 s (the CP leader looks for
     * expired sessions once a second, and only an expired session frees a crashed client's locks).
     */
    double targetSeconds(String backend) {
        double ttlTarget = leaseTtl.toMillis() / 1000.0 + 1;
        BenchCoordinator c = coordinators.get(backend);
        if (!backend.equals("hazelcast") || c == null || !c.clientOptions().containsKey("session-ttl")) {
            return ttlTarget;
        }
        double sessionTarget = Durations.parse("session-ttl", c.clientOptions().get("session-ttl")).toMillis() / 1000.0 + 1;
        return Math.max(ttlTarget, sessionTarget);
    }

    /** Runs every round; true when every orphan was re-emitted by another worker within its backend's target. */
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
        out.printf(Locale.ROOT, "%nFailover: SIGKILL of a worker JVM holding leases -> first emission of its rows by another worker "
                + "(lease ttl %d s, target <= ttl + 1 s = %.0f s", leaseTtl.toSeconds(), leaseTtl.toMillis() / 1000.0 + 1);
        for (String backend : backends) {
            BenchCoordinator c = coordinators.get(backend);
            if (c != null && targetSeconds(backend) != leaseTtl.toMillis() / 1000.0 + 1) {
                out.printf(Locale.ROOT, "; %s: CP session TTL %s + 1 s = %.0f s", backend, c.clientOptions().get("session-ttl"),
                        targetSeconds(backend));
            }
        }
        out.printf(Locale.ROOT, ")%n");
        out.printf(Locale.ROOT, "%-10s %5s %7s %8s %8s %9s | %s | %s%n", "backend", "round", "orphans", "median s",
                "max s", "target", "medians s: expiry select [wait] lease emit",
                "worst orphan s: expiry + select [wait] + lease + emit (refused)");
        boolean ok = true;
        for (Round r : all) {
            double target = targetSeconds(r.backend());
            boolean met = r.notReemitted() == 0 && r.orphans() > 0 && r.maxSeconds() <= target;
            ok &= met;
            String verdict = String.format(Locale.ROOT, "%.0f %s", target, met ? "met" : r.orphans() == 0 ? "none" : "MISSED");
            out.printf(Locale.ROOT, "%-10s %5d %7d %8.2f %8.2f %9s | %6.2f %6.2f [%4.2f] %5.2f %4.2f | %s%n", r.backend(),
                    r.round(), r.orphans(), r.medianSeconds(), r.maxSeconds(), verdict,
                    r.medianSeconds(Orphan::expiryMicros), r.medianSeconds(Orphan::selectionMicros),
                    r.medianSeconds(Orphan::cycleWaitMicros),
                    r.medianSeconds(Orphan::leaseMicros), r.medianSeconds(Orphan::emitMicros),
                    r.worst().map(FailoverBench::phases).orElse("-"));
        }
        out.printf(Locale.ROOT, "Phases: expiry = kill to the claim's recorded expiry; select = expiry to a survivor's first lease "
                + "request for the row, of which [wait] = expiry to any survivor's next claim cycle; lease = first request to "
                + "grant (refused: requests not granted); emit = grant to emission.%n");
        out.flush();
        return ok;
    }

    private Round round(String backend, int round) throws Exception {
        TableName table = database.freshTable();
        database.fill(table, 1, 100_000, Instant.now());
        String namespace = "failover-" + UUID.randomUUID().toString().substring(0, 8);
        List<FailoverWorkerProcess> workers = new ArrayList<>();
        try {
            for (int i = 1; i <= WORKERS; i++) {
                String owner = "failover-" + backend + "-" + round + "-" + i;
                workers.add(FailoverWorkerProcess.start(worker(backend, table, namespace, owner), owner));
            }
            CountDownLatch pacing = new CountDownLatch(1);
            awaitAllEmitting(backend, workers, pacing);
            FailoverWorkerProcess victim = workers.get(0);
            long killedAt = killMidBatch(victim, pacing);
            List<BenchDatabase.HeldClaim> orphans = database.claimedBy(table, victim.owner);
            List<Long> orphanIds = orphans.stream().map(BenchDatabase.HeldClaim::id).toList();
            long giveUp = System.nanoTime() + leaseTtl.toNanos() + TimeUnit.SECONDS.toNanos(30);
            while (System.nanoTime() < giveUp && !allReemitted(orphanIds, workers, killedAt)) {
                pacing.await(100, TimeUnit.MILLISECONDS);
            }
            List<FailoverWorkerProcess> survivors = workers.subList(1, workers.size());
            List<Orphan> detail = new ArrayList<>();
            for (BenchDatabase.HeldClaim claim : orphans) {
                Orphan orphan = orphan(backend, claim, survivors, killedAt);
                detail.add(orphan);
                err.printf(Locale.ROOT, "[failover %s round %d] orphan %d: %s%n", backend, round, claim.id(),
                        orphan.reemitted() ? String.format(Locale.ROOT, "re-emitted after %.2f s = %s", orphan.delayMicros() / 1e6,
                                phases(orphan)) : "NOT re-emitted");
            }
            long[] delays = detail.stream().filter(Orphan::reemitted).mapToLong(Orphan::delayMicros).sorted().toArray();
            int missing = (int) detail.stream().filter(o -> !o.reemitted()).count();
            return new Round(backend, round, orphans.size(), delays, missing, detail);
        } finally {
            workers.forEach(FailoverWorkerProcess::kill);
            database.drop(table);
        }
    }

    private static void awaitAllEmitting(String backend, List<FailoverWorkerProcess> workers, CountDownLatch pacing)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (workers.stream().anyMatch(w -> w.emissions.size() < 20)) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the " + backend + " failover workers did not all start emitting within 90 s; logs: "
                        + workers.stream().map(w -> w.log.toString()).toList());
            }
            pacing.await(100, TimeUnit.MILLISECONDS); // polling the workers' progress
        }
    }

    /** SIGKILLs the victim; returns when, in epoch microseconds. */
    private static long killMidBatch(FailoverWorkerProcess victim, CountDownLatch pacing) throws InterruptedException {
        // kill mid-batch: right after the victim reports a new emission, so it holds claims that are recorded
        int seen = victim.emissions.size();
        long waitForEmission = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (victim.emissions.size() == seen && System.nanoTime() < waitForEmission) {
            pacing.await(2, TimeUnit.MILLISECONDS);
        }
        long killedAt = nowMicros();
        victim.process.destroyForcibly(); // SIGKILL
        victim.process.waitFor(10, TimeUnit.SECONDS);
        return killedAt;
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

    private static boolean allReemitted(List<Long> orphans, List<FailoverWorkerProcess> workers, long killedAt) {
        return orphans.stream().allMatch(id -> first(workers.subList(1, workers.size()), w -> w.emissions, id, killedAt) >= 0);
    }

    /** One orphan's phases, from the survivors' traces. */
    private static Orphan orphan(String backend, BenchDatabase.HeldClaim claim, List<FailoverWorkerProcess> survivors, long killedAt) {
        long id = claim.id();
        long expiresAt = micros(claim.expiresAt());
        long emitted = first(survivors, w -> w.emissions, id, killedAt);
        long claimed = first(survivors, w -> w.claims, id, killedAt);
        if (backend.equals(BenchReport.DATABASE)) {
            // one statement asks and grants: both phases end when it returns
            long nextCycle = firstOfAny(survivors, w -> w.claimTimes, expiresAt);
            return new Orphan(id, killedAt, expiresAt, nextCycle, claimed, claimed, emitted, 0);
        }
        long granted = first(survivors, w -> w.grants, id, killedAt);
        // a request sent before the claim expired came from candidates read before the dead worker claimed the row
        long since = Math.max(killedAt, expiresAt);
        long requested = first(survivors, w -> w.requests, id, since);
        int refused = 0;
        for (FailoverWorkerProcess w : survivors) {
            List<Long> times = w.requests.getOrDefault(id, List.of());
            synchronized (times) {
                for (long at : times) {
                    if (at >= since && (granted < 0 || at < granted)) {
                        refused++;
                    }
                }
            }
        }
        // the granting request itself was sent before the grant returned: it is not a refusal
        long nextCycle = firstOfAny(survivors, w -> w.requestTimes, since);
        return new Orphan(id, killedAt, expiresAt, nextCycle, requested, granted, emitted,
                granted >= 0 ? Math.max(0, refused - 1) : refused);
    }

    private static String phases(Orphan o) {
        return String.format(Locale.ROOT, "%.2f + %.2f [%.2f wait] + %.2f + %.2f (%d)", o.expiryMicros() / 1e6,
                o.selectionMicros() / 1e6, o.cycleWaitMicros() / 1e6,
                o.leaseMicros() / 1e6, o.emitMicros() / 1e6, o.refusedRequests());
    }

    /** The first time at or after {@code since} that any of {@code workers} traced {@code id} in the chosen map, or -1. */
    private static long first(List<FailoverWorkerProcess> workers, java.util.function.Function<FailoverWorkerProcess, Map<Long, List<Long>>> events,
                              long id, long since) {
        long first = -1;
        for (FailoverWorkerProcess w : workers) {
            List<Long> times = events.apply(w).getOrDefault(id, List.of());
            synchronized (times) {
                for (long at : times) {
                    if (at >= since && (first < 0 || at < first)) {
                        first = at;
                    }
                }
            }
        }
        return first;
    }

    /** The first time at or after {@code since} in any of the workers' chosen lists, or -1. */
    private static long firstOfAny(List<FailoverWorkerProcess> workers, java.util.function.Function<FailoverWorkerProcess, List<Long>> times,
                                   long since) {
        long first = -1;
        for (FailoverWorkerProcess w : workers) {
            List<Long> list = times.apply(w);
            synchronized (list) {
                for (long at : list) {
                    if (at >= since && (first < 0 || at < first)) {
                        first = at;
                    }
                }
            }
        }
        return first;
    }

    private static long micros(Instant at) {
        return at.getEpochSecond() * 1_000_000 + at.getNano() / 1_000;
    }

    private static long nowMicros() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000 + now.getNano() / 1_000;
    }
}
