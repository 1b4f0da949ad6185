package dev.leasebox.chaos.harness;

import dev.leasebox.chaos.fault.FaultLog;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Everything one scenario run started: the outbox database, the coordinator, the worker JVMs (the
 * first is the fault's victim), the fault log and the provider's control file. Injectors act on it;
 * {@link #close()} stops every process it started.
 */
public final class ChaosCluster implements AutoCloseable {

    private final Path runDir;
    private final OutboxDatabase database;
    private final Coordinator coordinator;
    private final FaultLog faults;
    private final Duration lease;
    private final Path providerControl;
    private final boolean unsafeNoFence;
    private final Granularity granularity;
    private final List<WorkerProcess> workers = new ArrayList<>();
    private final List<WorkerProcess> retired = new ArrayList<>();
    /** Workers started with a granularity other than the run's (a fleet replaced by another claim style). */
    private final java.util.Map<String, Granularity> startedWith = new java.util.LinkedHashMap<>();
    private int generation;
    private LocalPostgres databaseServer;
    private KafkaDownstream kafka;

    public ChaosCluster(Path runDir, OutboxDatabase database, Coordinator coordinator, FaultLog faults, Duration lease,
                        boolean unsafeNoFence, Granularity granularity) {
        this.runDir = runDir;
        this.database = database;
        this.coordinator = coordinator;
        this.faults = faults;
        this.lease = lease;
        this.providerControl = runDir.resolve("provider-control.properties");
        this.unsafeNoFence = unsafeNoFence;
        this.granularity = granularity;
    }

    /** Starts a worker named {@code owner} and waits until it has reached the database and coordinator. */
    public WorkerProcess startWorker(String owner, WorkerProcess.Options options) {
        return startWorkers(java.util.Map.of(owner, options)).get(0);
    }

    /** Starts workers together (JVM start-up overlaps), then waits until each has reached the database and coordinator. */
    public List<WorkerProcess> startWorkers(java.util.Map<String, WorkerProcess.Options> byOwner) {
        return startWorkers(byOwner, granularity);
    }

    /**
     * As above, the workers leasing as {@code leasing} says instead of the run's granularity: a fleet that replaces
     * the run's first fleet with another claim style ({@link #ownersLeasing} names them for the checker).
     */
    public List<WorkerProcess> startWorkers(java.util.Map<String, WorkerProcess.Options> byOwner, Granularity leasing) {
        List<WorkerProcess> started = new ArrayList<>();
        if (!leasing.equals(granularity)) {
            byOwner.keySet().forEach(owner -> startedWith.put(owner, leasing));
        }
        byOwner.forEach((owner, options) -> {
            WorkerProcess.Options effective = new WorkerProcess.Options(options.groupId(), options.clockFile(),
                    options.writeLatency(), options.unsafeNoFence() || unsafeNoFence, providerControl, options.quickTimeouts(),
                    options.faultRules());
            WorkerProcess worker = WorkerProcess.start(owner, runDir, database, coordinator, lease, leasing,
                    effective, kafka == null ? "" : kafka.providerSpec());
            workers.add(worker);
            started.add(worker);
        });
        for (WorkerProcess worker : started) {
            if (!worker.awaitStarted(Duration.ofSeconds(60))) {
                throw new IllegalStateException("worker " + worker.owner() + " did not start (pid " + worker.process().pid()
                        + "); log " + worker.process().log() + ":\n" + worker.process().logTail());
            }
        }
        return started;
    }

    /**
     * Spawns a worker leasing as {@code leasing} without waiting for its start line: a worker the product may refuse
     * (a claim style that cannot exclude the running fleet's). Until it is {@link #retire}d it counts as one of the
     * run's workers, judged by {@code leasing} when that is not the run's granularity.
     */
    public WorkerProcess spawn(String owner, WorkerProcess.Options options, Granularity leasing) {
        if (!leasing.equals(granularity)) {
            startedWith.put(owner, leasing);
        }
        WorkerProcess.Options effective = new WorkerProcess.Options(options.groupId(), options.clockFile(),
                options.writeLatency(), options.unsafeNoFence() || unsafeNoFence, providerControl, options.quickTimeouts(),
                options.faultRules());
        WorkerProcess worker = WorkerProcess.start(owner, runDir, database, coordinator, lease, leasing, effective,
                kafka == null ? "" : kafka.providerSpec());
        workers.add(worker);
        return worker;
    }

    /** Starts a replacement for {@code dead} (a new owner name, so each history is one JVM's). */
    public WorkerProcess replace(WorkerProcess dead, WorkerProcess.Options options) {
        int index = workers.indexOf(dead);
        workers.remove(dead);
        retired.add(dead);
        generation++;
        String base = dead.owner().contains(".") ? dead.owner().substring(0, dead.owner().indexOf('.')) : dead.owner();
        WorkerProcess replacement = startWorker(base + "." + generation, options);
        workers.remove(replacement);
        workers.add(Math.max(0, index), replacement); // keeps the victim first
        return replacement;
    }

    /** Stops {@code worker} gracefully (SIGTERM: it releases what it holds and leaves the registry); it stays in the history. */
    public void retire(WorkerProcess worker) {
        worker.close();
        workers.remove(worker);
        retired.add(worker);
    }

    /** The owners started with a granularity other than the run's that {@code leasing} accepts. */
    public java.util.Set<String> ownersLeasing(java.util.function.Predicate<Granularity> leasing) {
        java.util.Set<String> owners = new java.util.TreeSet<>();
        startedWith.forEach((owner, g) -> {
            if (leasing.test(g)) {
                owners.add(owner);
            }
        });
        return owners;
    }

    public List<WorkerProcess> workers() {
        return List.copyOf(workers);
    }

    /** Every worker this run started, the dead ones included. */
    public List<WorkerProcess> allWorkers() {
        List<WorkerProcess> all = new ArrayList<>(retired);
        all.addAll(workers);
        return all;
    }

    public WorkerProcess victim() {
        return workers.get(0);
    }

    public List<WorkerProcess> others(WorkerProcess victim) {
        return workers.stream().filter(w -> w != victim).toList();
    }

    public OutboxDatabase database() {
        return database;
    }

    /** The PostgreSQL server the harness started for this run (faults that take the database down), if any. */
    public java.util.Optional<LocalPostgres> databaseServer() {
        return java.util.Optional.ofNullable(databaseServer);
    }

    /** Names the run's own PostgreSQL server (see {@link #databaseServer()}). */
    public ChaosCluster withDatabaseServer(LocalPostgres server) {
        this.databaseServer = server;
        return this;
    }

    /** The Kafka broker the workers send to, when the run has one (else they write the jdbc-inbox). */
    public java.util.Optional<KafkaDownstream> kafka() {
        return java.util.Optional.ofNullable(kafka);
    }

    /** Makes workers started from now on send to {@code downstream} ({@code --provider kafka:…}). */
    public ChaosCluster withKafka(KafkaDownstream downstream) {
        this.kafka = downstream;
        return this;
    }

    public Coordinator coordinator() {
        return coordinator;
    }

    public FaultLog faults() {
        return faults;
    }

    public Duration lease() {
        return lease;
    }

    /** What every worker of this run leases. */
    public Granularity granularity() {
        return granularity;
    }

    public Path runDir() {
        return runDir;
    }

    public Path providerControl() {
        return providerControl;
    }

    /** Stops every worker still running (SIGTERM, then SIGKILL); the coordinator and database are closed by their owner. */
    @Override
    public void close() {
        for (WorkerProcess w : allWorkers()) {
            try {
                w.close();
            } catch (RuntimeException e) {
                System.err.println("chaos: could not stop worker " + w.owner() + " (pid " + w.process().pid() + "): "
                        + e.getMessage());
            }
        }
    }
}
