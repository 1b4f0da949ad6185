package dev.leasebox.chaos.scenario;

import dev.leasebox.chaos.check.CheckResult;
import dev.leasebox.chaos.check.FinalState;
import dev.leasebox.chaos.check.HistoryChecker;
import dev.leasebox.chaos.evidence.AuditChecker;
import dev.leasebox.chaos.evidence.DeliveryChecker;
import dev.leasebox.chaos.evidence.Evidence;
import dev.leasebox.chaos.evidence.SwitchBound;
import dev.leasebox.chaos.fault.FaultInjector;
import dev.leasebox.chaos.fault.FaultLog;
import dev.leasebox.chaos.harness.ChaosCluster;
import dev.leasebox.chaos.harness.Coordinator;
import dev.leasebox.chaos.harness.Granularity;
import dev.leasebox.chaos.harness.KafkaDownstream;
import dev.leasebox.chaos.harness.LocalPostgres;
import dev.leasebox.chaos.harness.OutboxDatabase;
import dev.leasebox.chaos.harness.Poll;
import dev.leasebox.chaos.harness.WorkerProcess;
import dev.leasebox.chaos.history.FaultEvent;
import dev.leasebox.chaos.history.HistoryEvent;
import dev.leasebox.chaos.history.JsonLinesFile;
import dev.leasebox.chaos.report.RunReport;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

/**
 * Runs one scenario on one backend: a fresh schema, the coordinator's servers, two worker JVMs, a
 * producer enqueueing entries through the window, the fault schedule, a drain to the end, then the
 * checker on the histories and the final tables, and the report. Every process it started is
 * stopped before it returns, whatever happened.
 */
public final class ScenarioRunner {

    /** The result of one run: exit 0 (every invariant held), 1 (one broke), 2 (harness error). */
    public record Outcome(String backend, String scenario, int exitCode, Map<String, Object> summary, Path dir,
                          List<String> broken) {
    }

    private ScenarioRunner() {
    }

    public static Outcome run(String backend, Scenario scenario, RunSettings asked, PrintStream progress) {
        RunSettings settings = asked.withLease(scenario.lease(asked.lease()));
        Granularity granularity = settings.granularity();
        Path dir = settings.reportDir().resolve(directoryName(backend, scenario.name(), granularity));
        Progress steps = new Progress(progress, System.nanoTime());
        progress.printf("chaos: %s on %s (%s window, lease %s, %s)%s%n", scenario.name(), backend,
                settings.duration(), settings.lease(), granularity.describe(),
                settings.unsafeNoFence() ? " UNSAFE: no fence" : "");
        progress.flush();
        CheckResult result = null;
        String error = "";
        List<FaultEvent> faultEvents = List.of();
        java.util.Set<String> switched = java.util.Set.of();
        try {
            clean(dir);
            Files.createDirectories(dir);
            FaultInjector injector = scenario.injector().get();
            try (FaultLog faults = new FaultLog(dir.resolve("faults.jsonl"), progress);
                 LocalPostgres ownServer = scenario.ownDatabase() ? LocalPostgres.start(dir) : null;
                 OutboxDatabase db = OutboxDatabase.create(ownServer != null ? ownServer.jdbcUrl() : settings.jdbcBaseUrl(),
                         settings.keepSchema(), granularity.aggregates());
                 Coordinator coordinator = Coordinators.start(backend, dir, scenario.name());
                 KafkaDownstream kafka = scenario.kafka() ? KafkaDownstream.start(dir) : null;
                 ChaosCluster cluster = new ChaosCluster(dir, db, coordinator, faults, settings.lease(),
                         settings.unsafeNoFence(), granularity).withDatabaseServer(ownServer).withKafka(kafka)) {
                announceServers(steps, backend, ownServer, coordinator, kafka);
                db.enqueue(0, settings.initialEntries());
                startWorkers(steps, cluster, injector, dir);
                runWindow(steps, db, settings, cluster, injector);
                Collected collected = drainAndCollect(steps, db, settings, cluster, faults, dir, kafka);
                faultEvents = collected.faults();
                switched = collected.switched();
                result = check(backend, granularity, collected, kafka != null);
            }
        } catch (RuntimeException | IOException | Error e) {
            error = e.getClass().getSimpleName() + ": " + String.valueOf(e.getMessage()).lines().findFirst().orElse("");
            progress.println("  harness error: " + error + " (logs in " + dir + ")");
        }
        return report(steps, backend, scenario, settings, dir, result, error, faultEvents, switched);
    }

    /** What a run leaves to be checked: the final tables, the exported evidence and every history line. */
    private record Collected(FinalState end, Evidence.Exported evidence, List<HistoryEvent> history,
                             List<FaultEvent> faults, java.util.Set<String> switched) {
    }

    /** Progress lines stamped with the seconds since the run started. */
    private record Progress(PrintStream out, long started) {
        void step(String format, Object... args) {
            Object[] stamped = new Object[args.length + 1];
            stamped[0] = secondsSince(started);
            System.arraycopy(args, 0, stamped, 1, args.length);
            out.printf("  [%5.1fs] " + format, stamped);
        }
    }

    private static void announceServers(Progress steps, String backend, LocalPostgres ownServer, Coordinator coordinator,
                                        KafkaDownstream kafka) {
        if (kafka != null) {
            steps.step("workers send to %s%n", kafka.providerSpec());
        }
        if (ownServer != null) {
            steps.step("PostgreSQL of the run's own at 127.0.0.1:%d (pid %d)%n", ownServer.port(), ownServer.pid());
        }
        steps.step("%s%n", coordinator.address().isEmpty()
                ? "database backend: leases in the outbox table"
                : backend + " servers listening at " + coordinator.address());
    }

    private static void startWorkers(Progress steps, ChaosCluster cluster, FaultInjector injector, Path dir) {
        Map<String, WorkerProcess.Options> workers = new java.util.LinkedHashMap<>();
        workers.put("w1", injector.victimOptions(dir)); // the victim is always the first worker
        workers.put("w2", injector.othersOptions(dir));
        List<WorkerProcess.Options> bystanders = injector.bystanderOptions(dir);
        for (int i = 0; i < bystanders.size(); i++) {
            workers.put("w" + (i + 3), bystanders.get(i));
        }
        List<WorkerProcess> first = cluster.startWorkers(workers);
        StringBuilder startTimes = new StringBuilder();
        for (WorkerProcess w : first) {
            startTimes.append(startTimes.length() == 0 ? "" : ", ")
                    .append(String.format(java.util.Locale.ROOT, "%s %.1fs", w.owner(), w.secondsToStart()));
        }
        steps.step("workers started (spawn to start line: %s)%n", startTimes);
    }

    /** The fault window: the producer enqueues while the injector runs its schedule, then heals. */
    private static void runWindow(Progress steps, OutboxDatabase db, RunSettings settings, ChaosCluster cluster,
                                  FaultInjector injector) {
        Producer producer = new Producer(db, settings);
        producer.start();
        try {
            injector.inject(cluster, settings.duration());
        } finally {
            injector.heal(cluster);
            producer.finish();
        }
        steps.step("window over: %,d entries enqueued, draining (%,d outstanding)%n",
                producer.enqueued(), db.outstanding());
    }

    private static Collected drainAndCollect(Progress steps, OutboxDatabase db, RunSettings settings,
                                             ChaosCluster cluster, FaultLog faults, Path dir, KafkaDownstream kafka) {
        boolean drained = Poll.until(() -> db.outstanding() == 0, Duration.ofMillis(250), settings.drainTimeout());
        if (drained) {
            steps.step("drained%n");
        } else {
            steps.out().printf("  not drained after %s: %,d outstanding%n", settings.drainTimeout(), db.outstanding());
        }
        cluster.close();
        FinalState end = db.finalState();
        long exportStarted = System.nanoTime();
        KafkaDownstream.Received topic = kafka == null ? null : kafka.read();
        if (topic != null) {
            end = new FinalState(end.rows(), topic.inbox()); // the topic is the downstream
        }
        Evidence.Exported evidence = topic == null ? db.exportEvidence(dir, end)
                : db.exportEvidence(dir, end, topic.deliveries());
        steps.step("evidence exported: %,d audit lines, %,d deliveries (%.2fs)%n",
                evidence.audit().size(), evidence.deliveries().size(), secondsSince(exportStarted));
        List<HistoryEvent> history = new ArrayList<>();
        for (WorkerProcess w : cluster.allWorkers()) {
            history.addAll(JsonLinesFile.read(w.historyFile(), HistoryEvent::parse));
        }
        return new Collected(end, evidence, history, JsonLinesFile.read(faults.path(), FaultEvent::parse),
                cluster.ownersLeasing(g -> g.isLeanPartition() && !settings.granularity().isLeanPartition()));
    }

    /**
     * Judges the run with the rules of its claim style; a run whose fleet was replaced by lean partition workers
     * ({@link Collected#switched}) judges each worker's claims and deliveries by the style it was started with.
     */
    private static CheckResult check(String backend, Granularity granularity, Collected run, boolean kafka) {
        Evidence.Exported evidence = run.evidence();
        HistoryChecker.Rules rules = run.switched().isEmpty()
                ? new HistoryChecker.Rules(granularity.ordered(), granularity.isLeanPartition(), granularity.isLeanRows())
                : HistoryChecker.Rules.switchedToLeanPartitions(run.switched());
        return HistoryChecker.check(run.history(), run.faults(), run.end(), rules)
                .withAudit(AuditChecker.check(evidence.audit(), evidence.deliveries(), !granularity.isLean()))
                .withAudit(DeliveryChecker.check(evidence.audit(), evidence.deliveries(), run.faults(), run.end(),
                        DeliveryChecker.Mode.of(backend, granularity.isLean(), granularity.isLeanRows())
                                .withReceiptResolution(kafka ? 1_000 : 0) // Kafka stamps milliseconds
                                .switchedTo(run.switched()),
                        DeliveryChecker.lossesReported(run.history())))
                .withAudit(SwitchBound.check(evidence.deliveries(), run.switched(), WorkerProcess.BATCH));
    }

    /** Writes the report and prints the verdict; a run that never reached its check reports an empty result. */
    private static Outcome report(Progress steps, String backend, Scenario scenario, RunSettings settings, Path dir,
                                  CheckResult checked, String error, List<FaultEvent> faultEvents,
                                  java.util.Set<String> switched) {
        Granularity granularity = settings.granularity();
        PrintStream progress = steps.out();
        double seconds = secondsSince(steps.started());
        RunReport.Run run = new RunReport.Run(backend, scenario.name(), scenario.proves(), seconds,
                settings.unsafeNoFence(), error, granularity.leaseGranularity(), granularity.ordered(),
                granularity.isPartition() ? granularity.partitionClaims() : "", granularity.isLean() ? "lean" : "recorded",
                scenario.kafka() ? "kafka" : "jdbc-inbox", variant(granularity).replaceFirst("^-", ""),
                granularity.releaseAfterCompletion(), granularity.releaseInBackground(), String.join(",", switched));
        CheckResult result = checked != null ? checked
                : new CheckResult(0, 0, 0, 0, 0, 0, 0, 0, Map.of(), 0, 0, 0, 0, List.of(), List.of(), List.of(), 0,
                        granularity.ordered());
        RunReport.write(dir, run, result, faultEvents);
        int exit = !error.isEmpty() ? 2 : result.passed() ? 0 : 1;
        Map<String, Object> summary = RunReport.summary(run, result);
        progress.printf("  %s: lost %d, stale accepted %d, fence regressions %d, premature takeovers %d, duplicates %d "
                        + "(unexplained %d), refused %d, faults %d, order violations %d%s, reclaim p50 %.2fs max %.2fs (%.0fs)%n",
                exit == 0 ? "PASSED" : exit == 1 ? "FAILED" : "ERROR", result.lost(), result.staleCompletionsAccepted(),
                result.fenceRegressions(), result.prematureTakeovers(), result.duplicateEmissions(), result.unexplainedDuplicates(),
                result.completionsRefused(), result.faultsInjected(), result.orderViolations(),
                granularity.ordered() ? "" : " (not ordered: reported only)", result.reclaimSecondsP50(),
                result.reclaimSecondsMax(), seconds);
        result.brokenInvariants().forEach(b -> progress.println("    broken: " + b));
        progress.flush();
        return new Outcome(backend, scenario.name(), exit, summary, dir, result.brokenInvariants());
    }

    /**
     * {@code <backend>-<scenario>}, then the variant ({@link #variant}).
     */
    static String directoryName(String backend, String scenario, Granularity g) {
        return backend + "-" + scenario + variant(g);
    }

    /**
     * How a run's claims differ from recorded row claims released by default, as its directory and
     * {@code summary.json} name it: {@code -partition-<claims>[-ordered]} for partition leases, {@code -lean} for lean
     * row claims, then {@code -per-row} or {@code -grouped} where the row keying is set, {@code -non-terminal} and
     * {@code -release-in-background} for the release options; empty for the default.
     */
    static String variant(Granularity g) {
        return (g.isPartition() ? "-partition-" + g.partitionClaims() + (g.ordered() ? "-ordered" : "")
                : g.isLeanRows() ? "-lean" : "") + g.releaseSuffix();
    }

    private static double secondsSince(long nanos) {
        return (System.nanoTime() - nanos) / 1e9;
    }

    private static void clean(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.delete(p);
                } catch (IOException e) {
                    throw new UncheckedIOException("cannot clear the old run directory " + dir + ": " + e.getMessage(), e);
                }
            });
        }
    }

    /** Enqueues {@code entriesPerSecond} entries a second, in tenths, until finished. */
    private static final class Producer extends Thread {
        private final OutboxDatabase db;
        private final RunSettings settings;
        private final AtomicInteger next;
        private final AtomicReference<RuntimeException> failure = new AtomicReference<>();
        private volatile boolean finished;

        Producer(OutboxDatabase db, RunSettings settings) {
            super("chaos-producer");
            setDaemon(true);
            this.db = db;
            this.settings = settings;
            this.next = new AtomicInteger(settings.initialEntries());
        }

        @Override
        public void run() {
            int perTick = Math.max(1, settings.entriesPerSecond() / 10);
            long deadline = System.nanoTime() + settings.duration().toNanos();
            // A tick the database refused (it is being restarted, or the connection was terminated) is tried again
            // next tick with the same numbers; the producer fails only if the last tick still failed.
            while (!finished && System.nanoTime() < deadline) {
                try {
                    db.enqueue(next.get(), perTick);
                    next.addAndGet(perTick);
                    failure.set(null);
                } catch (RuntimeException e) {
                    failure.set(e);
                }
                Poll.pause(Duration.ofMillis(100));
            }
        }

        void finish() {
            try {
                join(settings.duration().toMillis() + 5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            finished = true;
            if (failure.get() != null) {
                throw new IllegalStateException("the producer failed: " + failure.get().getMessage(), failure.get());
            }
        }

        int enqueued() {
            return next.get();
        }
    }
}
