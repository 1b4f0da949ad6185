package dev.leasebox.cli;

import dev.leasebox.jdbc.OutboxTableStatus;
import com.zaxxer.hikari.HikariDataSource;
import dev.leasebox.Leasebox;
import dev.leasebox.LeaseboxSettings;
import dev.leasebox.drain.DrainListener;
import dev.leasebox.drain.DrainOptions;
import dev.leasebox.drain.ProviderFailureLog;
import dev.leasebox.lease.LeaseManager;
import dev.leasebox.metrics.BacklogGauges;
import dev.leasebox.metrics.DrainMetrics;
import dev.leasebox.metrics.MeteredLeaseManager;
import dev.leasebox.provider.OutboxProvider;
import dev.leasebox.provider.ProviderSpec;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.net.BindException;
import dev.leasebox.lease.MonotonicClock;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A worker: drains the outbox until SIGTERM (graceful: stop claiming, finish or release what it
 * holds), or with {@code --exit-when-idle} until nothing is eligible or claimed by a live lease.
 * Workers on different hosts need only the same JDBC URL, backend address and namespace.
 */
@Command(name = "worker", mixinStandardHelpOptions = true,
        description = {"Drain the outbox: claim rows as fenced leases, emit them to the provider, record the outcome.",
                "Runs until SIGTERM (graceful) or, with --exit-when-idle, until nothing is left to do."})
final class WorkerCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Mixin
    DatabaseOptions database;

    @Mixin
    DrainFlags drain;

    @Option(names = "--exit-when-idle", description = "Exit once nothing is eligible or claimed by a live lease; "
            + "the exit code is 3 when this run dead-lettered any entry, else 0.")
    boolean exitWhenIdle;

    @Option(names = "--metrics-port", paramLabel = "PORT", description = "Serve Prometheus metrics on http://127.0.0.1:PORT/metrics.")
    Integer metricsPort;

    @Option(names = "--metrics-host", paramLabel = "HOST", defaultValue = "127.0.0.1", description = "Interface for --metrics-port (default: ${DEFAULT-VALUE}).")
    String metricsHost;

    @Option(names = "--retain-delivered", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "Delete DELIVERED rows delivered longer ago than this, e.g. 7d, in the background (as leasebox purge).")
    Duration retainDelivered;

    @Option(names = "--retention-interval", paramLabel = "DURATION", defaultValue = "5m", converter = DurationConverter.class,
            description = "With --retain-delivered: how often to purge, the first time at start (default: ${DEFAULT-VALUE}).")
    Duration retentionInterval;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        validateNumbers();
        LeaseboxSettings settings = drain.settings(database.table);
        ProviderSpec providerSpec = settings.provider().orElseThrow();
        DrainOptions options = settings.options();
        Clock clock = MonotonicClock.system();
        List<AutoCloseable> resources = new ArrayList<>();
        try {
            PrometheusEndpoint endpoint = null;
            MeterRegistry registry = new SimpleMeterRegistry();
            if (metricsPort != null) {
                endpoint = openEndpoint();
                resources.add(endpoint);
                registry = endpoint.registry();
            }
            database.poolSize = Math.max(database.poolSize, options.concurrency() + 3); // one more than before: the commit listener holds one
            HikariDataSource dataSource = database.open();
            resources.add(dataSource);
            Optional<LeaseManager> opened = settings.openLeases(clock);
            opened.ifPresent(resources::add);
            MeterRegistry meters = registry;
            Optional<MeteredLeaseManager> manager = opened.map(m -> new MeteredLeaseManager(m, meters));
            OutboxProvider emitter = openProvider(providerSpec, clock, options.concurrency(), resources);
            DrainMetrics metrics = new DrainMetrics(registry);
            BacklogGauges.register(registry, new OutboxTableStatus(dataSource, database.tableName()), clock);
            PrintWriter err = spec.commandLine().getErr();
            ProviderFailureLog failures = new ProviderFailureLog(line -> {
                err.println("worker: " + line);
                err.flush();
            });
            Leasebox drain = buildDrain(settings, dataSource, emitter, clock, DrainListener.all(metrics, failures, idlePolls),
                    registry, manager);
            resources.add(drain);
            if (endpoint != null) {
                addProbes(endpoint, drain, dataSource, settings);
            }
            printStart(out, settings, drain, providerSpec, endpoint);
            return runUntilDone(drain, metrics, failures, new OutboxTableStatus(dataSource, database.tableName()), clock, out,
                    dataSource, err);
        } finally {
            closeAll(resources);
            cleanedUp.countDown();
        }
    }

    /** The provider, its inbox pools and (when closeable) itself added to {@code resources}. */
    private OutboxProvider openProvider(ProviderSpec providerSpec, Clock clock, int concurrency, List<AutoCloseable> resources) {
        OutboxProvider emitter = providerSpec.open(clock, url -> {
            HikariDataSource inbox = JdbcDataSources.pooled(url, "", "", concurrency + 1);
            resources.add(inbox);
            return inbox;
        });
        if (emitter instanceof AutoCloseable closeable) {
            resources.add(closeable);
        }
        return emitter;
    }

    private Leasebox buildDrain(LeaseboxSettings settings, HikariDataSource dataSource, OutboxProvider emitter, Clock clock,
                                DrainListener listener, MeterRegistry meters, Optional<MeteredLeaseManager> manager) {
        Leasebox.Builder builder = settings.applyTo(Leasebox.drain(dataSource), manager).provider(emitter)
                .clock(clock).listener(listener)
                .meterLeases(meters)
                .onRegistryConflict(why -> {
                    stoppedBecause = why;
                    done.countDown();
                });
        return builder.build();
    }

    private void addProbes(PrometheusEndpoint endpoint, Leasebox drain, HikariDataSource dataSource, LeaseboxSettings settings) {
        String backend = settings.backend().orElse(LeaseboxSettings.DATABASE);
        Readiness readiness = new Readiness(dataSource, database.tableName(), backend, Readiness.addresses(backend, settings.address()));
        endpoint.probe("/health", () -> switch (drain.engine().state()) {
            case NEW, RUNNING -> Optional.empty();
            case STOPPING, CLOSED -> Optional.of("the worker is stopping");
        });
        endpoint.probe("/ready", () -> switch (drain.engine().state()) {
            case RUNNING -> readiness.problem();
            case NEW -> Optional.of("the worker is starting");
            case STOPPING, CLOSED -> Optional.of("the worker is stopping");
        });
    }

    private void printStart(PrintWriter out, LeaseboxSettings settings, Leasebox drain, ProviderSpec providerSpec,
                            PrometheusEndpoint endpoint) {
        DrainOptions options = settings.options();
        out.println("leasebox worker " + options.owner() + ": draining " + settings.table() + " at "
                + JdbcDataSources.redact(database.jdbcUrl) + " through " + drain.describe()
                + ", provider " + providerSpec.kind() + ", batch " + options.batchSize()
                + ", lease " + DurationConverter.format(options.leaseDuration())
                + (endpoint == null ? "" : ", metrics on http://" + metricsHost + ":" + endpoint.port()
                + "/metrics (probes /health, /ready)")
                + (retainDelivered == null ? "" : ", retaining delivered rows " + DurationConverter.format(retainDelivered)));
        out.flush();
    }

    /** The worker's own flags (the drain's are checked by {@link LeaseboxSettings}), each in the words of its flag. */
    private void validateNumbers() {
        if (metricsPort != null && (metricsPort < 0 || metricsPort > 65535)) {
            throw new IllegalArgumentException("--metrics-port must be between 0 and 65535 (0 picks a free port), was " + metricsPort);
        }
        if (retainDelivered != null && (retainDelivered.isNegative() || retainDelivered.isZero())) {
            throw new IllegalArgumentException("--retain-delivered must be positive, e.g. 7d, was " + DurationConverter.format(retainDelivered));
        }
        if (retentionInterval.compareTo(Duration.ofSeconds(1)) < 0) {
            throw new IllegalArgumentException("--retention-interval must be at least 1s, was " + DurationConverter.format(retentionInterval));
        }
    }

    private PrometheusEndpoint openEndpoint() {
        try {
            return new PrometheusEndpoint(metricsHost, metricsPort);
        } catch (UncheckedIOException e) {
            String why = e.getCause() instanceof BindException ? "is in use" : "cannot be served: " + e.getCause().getMessage();
            throw new IllegalArgumentException("--metrics-port " + metricsPort + ": " + metricsHost + ":" + metricsPort + " " + why
                    + "; choose another port, or 0 for a free one", e);
        }
    }

    /** Counted down once every resource is closed: a SIGTERM's shutdown hook waits for it (slots released, group left). */
    private final CountDownLatch cleanedUp = new CountDownLatch(1);
    /** Counted down when the worker should stop: SIGTERM, idle, or a claim-style conflict. */
    private final CountDownLatch done = new CountDownLatch(1);
    /** Set when a claim loop finds nothing to do; the idle check reads the table only after one. */
    private final IdlePolls idlePolls = new IdlePolls();
    /** Why the worker stopped on its own, when it was a claim-style conflict. */
    private volatile String stoppedBecause;

    private int runUntilDone(Leasebox drain, DrainMetrics metrics, ProviderFailureLog failures, OutboxTableStatus report,
                             Clock clock, PrintWriter out, HikariDataSource dataSource, PrintWriter err)
            throws InterruptedException {
        Thread hook = shutdownHook(drain);
        Runtime.getRuntime().addShutdownHook(hook);
        ScheduledExecutorService ticker = daemonScheduler("leasebox-worker-ticker");
        ScheduledExecutorService retention = daemonScheduler("leasebox-retention");
        long started = System.nanoTime();
        try {
            drain.start();
            if (retainDelivered != null) {
                RetentionTask task = new RetentionTask(dataSource, database.tableName(), retainDelivered, retentionInterval, out, err);
                retention.scheduleWithFixedDelay(task, 0, retentionInterval.toMillis(), TimeUnit.MILLISECONDS);
            }
            ticker.scheduleAtFixedRate(() -> {
                double seconds = (System.nanoTime() - started) / 1e9;
                out.printf("worker: %s (%.0f rows/s)%n", totals(metrics), metrics.deliveredTotal() / Math.max(seconds, 1e-9));
                out.flush();
            }, 10, 10, TimeUnit.SECONDS);
            if (exitWhenIdle) {
                ticker.scheduleWithFixedDelay(() -> checkIdle(report, clock, out), 50, 50, TimeUnit.MILLISECONDS);
            }
            done.await();
            drain.engine().close();
            failures.flush();
            if (stoppedBecause != null) {
                throw new IllegalStateException(stoppedBecause);
            }
            out.printf("worker %s stopped: %s%n", drain.options().owner(), totals(metrics));
            out.flush();
            if (exitWhenIdle && metrics.deadLetteredTotal() > 0) {
                // a cron job or a CI step that drains and exits must see that entries were given up on
                err.printf("worker %s dead-lettered %,d entries; 'leasebox status' lists them, 'leasebox redrive' sends them again%n",
                        drain.options().owner(), metrics.deadLetteredTotal());
                err.flush();
                return CliErrors.EXIT_DEAD_LETTERED;
            }
            return CliErrors.EXIT_OK;
        } finally {
            stopBackground(ticker, retention, hook);
        }
    }

    private Thread shutdownHook(Leasebox drain) {
        return new Thread(() -> {
            drain.engine().close();
            done.countDown();
            try {
                // the JVM exits when the hooks end: let the main thread release slots and leave the group first
                cleanedUp.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "leasebox-shutdown");
    }

    private static ScheduledExecutorService daemonScheduler(String threadName) {
        return Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, threadName);
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Exits once the table holds nothing to act on, asked only after a claim loop of this worker found nothing
     * since the last question: while the loops are busy the table is not read at all.
     */
    private void checkIdle(OutboxTableStatus report, Clock clock, PrintWriter out) {
        if (done.getCount() == 0 || !idlePolls.seenSinceLastAsked()) {
            return; // stopping already: nothing is left to decide
        }
        try {
            if (!report.anyOutstanding(clock.instant())) {
                done.countDown();
            }
        } catch (Exception e) {
            out.println("worker: idle check failed, will retry: " + CliErrors.oneLine(e));
        }
    }

    private static void stopBackground(ScheduledExecutorService ticker, ScheduledExecutorService retention, Thread hook) {
        ticker.shutdown(); // cancels the periodic checks; one in flight ends rather than being interrupted
        retention.shutdownNow();
        try {
            ticker.awaitTermination(10, TimeUnit.SECONDS); // an idle check in flight ends before the pool closes
            retention.awaitTermination(10, TimeUnit.SECONDS); // a batch in flight ends before the pool closes
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            // the hook is running: it closes the drain itself
        }
    }

    /** Delivered, failed provider attempts, dead letters and refused stale completions, so far. */
    static String totals(DrainMetrics metrics) {
        return String.format(java.util.Locale.ROOT, "delivered %,d, failed attempts %,d, dead-lettered %,d, stale completions refused %,d",
                metrics.deliveredTotal(), metrics.failedTotal(), metrics.deadLetteredTotal(), metrics.refusedTotal());
    }

    /** Closes {@code resources} in reverse order of opening; a failure does not stop the others. */
    static void closeAll(List<AutoCloseable> resources) {
        for (int i = resources.size() - 1; i >= 0; i--) {
            try {
                resources.get(i).close();
            } catch (Exception e) {
                // closing on the way out: the first failure was already reported
            }
        }
    }
}
