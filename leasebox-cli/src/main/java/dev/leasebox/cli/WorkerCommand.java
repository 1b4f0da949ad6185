package dev.leasebox.cli;

import dev.leasebox.jdbc.OutboxTableStatus;
import com.zaxxer.hikari.HikariDataSource;
import dev.leasebox.Leasebox;
import dev.leasebox.drain.DrainListener;
import dev.leasebox.drain.DrainOptions;
import dev.leasebox.drain.ProviderFailureLog;
import dev.leasebox.metrics.BacklogGauges;
import dev.leasebox.metrics.DrainMetrics;
import dev.leasebox.metrics.MeteredLeaseManager;
import dev.leasebox.provider.OutboxProvider;
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
import dev.leasebox.outbox.ClaimRequest;
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
    BackendOptions backend;

    @Mixin
    GranularityOptions granularity;

    @Mixin
    ClaimPathOptions claimPath;

    @Option(names = "--owner", paramLabel = "NAME", description = "This worker's name in claims (default: host-pid-random).")
    String owner;

    @Option(names = "--provider", paramLabel = "SPEC", defaultValue = "log", description = "Where entries go: " + ProviderSpec.FORMATS + " (default: ${DEFAULT-VALUE}).")
    String provider;

    @Option(names = "--lease-ttl", paramLabel = "DURATION", defaultValue = "30s", converter = DurationConverter.class,
            description = "Lease duration, at least 1s, e.g. 30s or 1m30s; renewed every third of it while emitting (default: ${DEFAULT-VALUE}).")
    Duration leaseTtl;

    @Option(names = "--batch", paramLabel = "N", defaultValue = "100", description = "Rows claimed per batch (default: ${DEFAULT-VALUE}).")
    int batch;

    @Option(names = "--concurrency", paramLabel = "N", defaultValue = "1", description = "Claim loops (threads) in this worker (default: ${DEFAULT-VALUE}).")
    int concurrency;

    @Option(names = "--max-attempts", paramLabel = "N", defaultValue = "10", description = "Attempts before dead-lettering (default: ${DEFAULT-VALUE}).")
    int maxAttempts;

    @Option(names = "--candidate-spread", paramLabel = "N", defaultValue = "4",
            description = "With an external backend, pick each batch at random among the oldest N batches' worth of rows, "
                    + "so workers racing for leases mostly ask for different rows (default: ${DEFAULT-VALUE}).")
    int candidateSpread;

    @Option(names = "--wake-ups", paramLabel = "BOOLEAN", arity = "0..1", defaultValue = "true", fallbackValue = "true",
            description = "Look as soon as entries are committed (PostgreSQL notifications on one held connection, "
                    + "writers through the coordinator) instead of only polling; false: poll only (default: ${DEFAULT-VALUE}).")
    boolean wakeUps;

    @Option(names = "--exit-when-idle", description = "Exit once nothing is eligible or claimed by a live lease; "
            + "the exit code is 3 when this run dead-lettered any entry, else 0.")
    boolean exitWhenIdle;

    @Option(names = "--metrics-port", paramLabel = "PORT", description = "Serve Prometheus metrics on http://127.0.0.1:PORT/metrics.")
    Integer metricsPort;

    @Option(names = "--metrics-host", paramLabel = "HOST", defaultValue = "127.0.0.1", description = "Interface for --metrics-port (default: ${DEFAULT-VALUE}).")
    String metricsHost;

    @Option(names = "--backoff-initial", paramLabel = "DURATION", defaultValue = "1s", converter = DurationConverter.class,
            description = "Retry backoff: the delay ceiling after the first failed attempt (default: ${DEFAULT-VALUE}).")
    Duration backoffInitial;

    @Option(names = "--backoff-multiplier", paramLabel = "X", defaultValue = "2",
            description = "Retry backoff: how much the ceiling grows per failed attempt, 1 to 100 (default: ${DEFAULT-VALUE}).")
    double backoffMultiplier;

    @Option(names = "--backoff-cap", paramLabel = "DURATION", defaultValue = "5m", converter = DurationConverter.class,
            description = "Retry backoff: the largest ceiling (default: ${DEFAULT-VALUE}).")
    Duration backoffCap;

    @Option(names = "--backoff-jitter", paramLabel = "FRACTION", defaultValue = "1.0",
            description = "Retry backoff: each delay is drawn from [ceiling * (1 - FRACTION), ceiling]; 1.0 spreads retries "
                    + "from 0 to the ceiling, 0 waits exactly the ceiling (default: ${DEFAULT-VALUE}).")
    double backoffJitter;

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
        backend.validate();
        granularity.validate();
        claimPath.validate(backend.isDatabase());
        if (granularity.isPartition() && !claimPath.isDefault()) {
            throw new IllegalArgumentException("--claim-mode, --release-after-completion and --release-in-background are for row leases; "
                    + "with --lease-granularity partition use --partition-claims lean|recorded");
        }
        ProviderSpec providerSpec = ProviderSpec.parse(provider);
        DrainOptions options = drainOptions();
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
            database.poolSize = Math.max(database.poolSize, concurrency + 3); // one more than before: the commit listener holds one
            HikariDataSource dataSource = database.open();
            resources.add(dataSource);
            Optional<MeteredLeaseManager> manager = backend.openManager(leaseTtl, registry);
            manager.ifPresent(resources::add);
            OutboxProvider emitter = openProvider(providerSpec, clock, resources);
            DrainMetrics metrics = new DrainMetrics(registry);
            BacklogGauges.register(registry, new OutboxTableStatus(dataSource, database.tableName()), clock);
            PrintWriter err = spec.commandLine().getErr();
            ProviderFailureLog failures = new ProviderFailureLog(line -> {
                err.println("worker: " + line);
                err.flush();
            });
            Leasebox drain = buildDrain(dataSource, emitter, options, clock, DrainListener.all(metrics, failures, idlePolls),
                    registry, manager);
            resources.add(drain);
            if (endpoint != null) {
                addProbes(endpoint, drain, dataSource);
            }
            printStart(out, options, drain, providerSpec, endpoint);
            return runUntilDone(drain, metrics, failures, new OutboxTableStatus(dataSource, database.tableName()), clock, out,
                    dataSource, err);
        } finally {
            closeAll(resources);
            cleanedUp.countDown();
        }
    }

    private DrainOptions drainOptions() {
        DrainOptions.Builder optionsBuilder = DrainOptions.builder().batchSize(batch).leaseDuration(leaseTtl)
                .concurrency(concurrency).maxAttempts(maxAttempts).whenAttemptsExhausted(granularity.attemptsExhausted())
                .backoff(backoffInitial, backoffMultiplier, backoffCap, backoffJitter);
        if (owner != null) {
            optionsBuilder.owner(owner);
        }
        return optionsBuilder.build();
    }

    /** The provider, its inbox pools and (when closeable) itself added to {@code resources}. */
    private OutboxProvider openProvider(ProviderSpec providerSpec, Clock clock, List<AutoCloseable> resources) {
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

    private Leasebox buildDrain(HikariDataSource dataSource, OutboxProvider emitter, DrainOptions options, Clock clock,
                                DrainListener listener, MeterRegistry meters, Optional<MeteredLeaseManager> manager) {
        Leasebox.Builder builder = Leasebox.drain(dataSource).table(database.tableName()).provider(emitter)
                .options(options).clock(clock).listener(listener).wakeUps(wakeUps)
                .meterLeases(meters)
                .onRegistryConflict(why -> {
                    stoppedBecause = why;
                    done.countDown();
                });
        if (manager.isPresent()) {
            builder.leases(manager.get()).coordinator(backend.backend, backend.address(), backend.namespace)
                    .candidateWindow(claimPath.candidateOverAsk(), candidateSpread);
        }
        granularity.configure(builder);
        if (!granularity.isPartition() && manager.isPresent()) {
            builder.rowGrouping(backend.rowGrouping()).claimMode(claimPath.claimMode()).releaseAfterCompletion(claimPath.releaseAfterCompletion())
                    .releaseInBackground(claimPath.releaseInBackground());
        }
        return builder.build();
    }

    private void addProbes(PrometheusEndpoint endpoint, Leasebox drain, HikariDataSource dataSource) {
        Readiness readiness = new Readiness(dataSource, database.tableName(), backend.backend,
                Readiness.addresses(backend.backend, backend.isDatabase() ? "" : backend.address()));
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

    private void printStart(PrintWriter out, DrainOptions options, Leasebox drain, ProviderSpec providerSpec,
                            PrometheusEndpoint endpoint) {
        out.println("leasebox worker " + options.owner() + ": draining " + database.tableName() + " at "
                + JdbcDataSources.redact(database.jdbcUrl) + " through " + drain.describe()
                + ", provider " + providerSpec.kind() + ", batch " + batch + ", lease " + DurationConverter.format(leaseTtl)
                + (endpoint == null ? "" : ", metrics on http://" + metricsHost + ":" + endpoint.port()
                + "/metrics (probes /health, /ready)")
                + (retainDelivered == null ? "" : ", retaining delivered rows " + DurationConverter.format(retainDelivered)));
        out.flush();
    }

    /** The shortest --lease-ttl: renewals every third of it are round trips that must fit well inside it. */
    static final Duration MIN_LEASE_TTL = Duration.ofSeconds(1);

    /** The numeric options, each checked in the words of its flag before anything is opened. */
    private void validateNumbers() {
        CliErrors.requireBetween("--batch", batch, 1, ClaimRequest.MAX_BATCH_SIZE);
        CliErrors.requireBetween("--concurrency", concurrency, 1, DrainOptions.MAX_CONCURRENCY);
        CliErrors.requireBetween("--max-attempts", maxAttempts, 1, Integer.MAX_VALUE);
        CliErrors.requireBetween("--candidate-spread", candidateSpread, 1, 100);
        if (metricsPort != null && (metricsPort < 0 || metricsPort > 65535)) {
            throw new IllegalArgumentException("--metrics-port must be between 0 and 65535 (0 picks a free port), was " + metricsPort);
        }
        if (backoffInitial.toMillis() < 1) {
            throw new IllegalArgumentException("--backoff-initial must be at least 1ms, was " + DurationConverter.format(backoffInitial));
        }
        if (backoffCap.compareTo(backoffInitial) < 0) {
            throw new IllegalArgumentException("--backoff-cap " + DurationConverter.format(backoffCap) + " is below --backoff-initial "
                    + DurationConverter.format(backoffInitial) + ": make the cap at least the initial delay");
        }
        if (!(backoffMultiplier >= 1 && backoffMultiplier <= dev.leasebox.drain.Backoff.MAX_MULTIPLIER)) {
            throw new IllegalArgumentException("--backoff-multiplier must be between 1 and 100, was " + backoffMultiplier);
        }
        if (!(backoffJitter >= 0 && backoffJitter <= 1)) {
            throw new IllegalArgumentException("--backoff-jitter must be between 0 and 1 (a fraction of each delay), was "
                    + backoffJitter);
        }
        if (retainDelivered != null && (retainDelivered.isNegative() || retainDelivered.isZero())) {
            throw new IllegalArgumentException("--retain-delivered must be positive, e.g. 7d, was " + DurationConverter.format(retainDelivered));
        }
        if (retentionInterval.compareTo(Duration.ofSeconds(1)) < 0) {
            throw new IllegalArgumentException("--retention-interval must be at least 1s, was " + DurationConverter.format(retentionInterval));
        }
        if (leaseTtl.compareTo(MIN_LEASE_TTL) < 0) {
            throw new IllegalArgumentException("--lease-ttl " + DurationConverter.format(leaseTtl) + " is too short: use at least "
                    + DurationConverter.format(MIN_LEASE_TTL) + " (it is renewed every third of it, a round trip each time)");
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
                ticker.scheduleWithFixedDelay(() -> checkIdle(report, clock, out), 200, 200, TimeUnit.MILLISECONDS);
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
        if (!idlePolls.seenSinceLastAsked()) {
            return;
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
        ticker.shutdownNow();
        retention.shutdownNow();
        try {
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
