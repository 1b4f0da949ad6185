package dev.leasebox.chaos.worker;

import dev.leasebox.testing.LeaseboxToolBuilder;
import com.zaxxer.hikari.HikariDataSource;
import dev.leasebox.Leasebox;
import dev.leasebox.chaos.history.JsonLinesFile;
import dev.leasebox.claim.ClaimMode;
import dev.leasebox.claim.LeaseGrouping;
import dev.leasebox.claim.ReleaseAfterCompletion;
import dev.leasebox.claim.leased.LeasedOutboxClaimStore;
import dev.leasebox.cli.GranularityOptions;
import dev.leasebox.cli.JdbcDataSources;
import dev.leasebox.cli.ProviderSpec;
import dev.leasebox.drain.DrainOptions;
import dev.leasebox.jdbc.TableName;
import dev.leasebox.jdbc.lease.ClaimStyleRegistry;
import dev.leasebox.jdbc.store.JdbcOutboxStore;
import dev.leasebox.lease.LeaseManager;
import dev.leasebox.lease.spi.LeaseBackendSettings;
import dev.leasebox.outbox.OutboxClaimStore;
import dev.leasebox.provider.JdbcInboxProvider;
import dev.leasebox.provider.OutboxProvider;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import dev.leasebox.claim.grouped.GroupedLeaseManager;
import dev.leasebox.lease.MonotonicClock;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A chaos worker JVM: the same drain as {@code leasebox worker} (a {@link JdbcOutboxStore} on
 * PostgreSQL, the {@code database} backend or an external one opened by name and layered with
 * {@link LeasedOutboxClaimStore#open}, the jdbc-inbox provider), plus a {@link HistoryRecorder}
 * writing its history. Runs until SIGTERM (graceful) or SIGKILL. Started by the harness with
 * {@code java} directly, so a signal to its pid reaches this JVM.
 *
 * <p>The lease granularity options are {@code leasebox worker}'s own ({@link GranularityOptions} as a
 * mixin: {@code --lease-granularity row|partition}, {@code --ordered}, {@code --partition-claims
 * lean|recorded}, {@code --slots}, {@code --when-attempts-exhausted}), and the claim store is built by
 * the same code ({@link GranularityOptions#claimStore}): partition mode here is the worker's. Row leases through
 * an external backend take {@code --claim-mode recorded|lean} as {@code leasebox worker} does. Like it, the worker
 * joins the table's {@link ClaimStyleRegistry} with the same style derivation, so a mixed fleet is refused. So do
 * {@code --release-after-completion always|non-terminal} and {@code --release-in-background}, passed to the
 * library's builder as {@code leasebox worker} passes them.
 *
 * <p>Chaos-only options: {@code --provider-control} (faults switched from outside),
 * {@code --write-latency} (a slow completion path) and {@code --unsafe-no-fence} (completions bypass
 * the token check: the bug the fencing scenarios must catch; never in {@code leasebox worker}).
 */
@Command(name = "chaos-worker", mixinStandardHelpOptions = true, description = "A history-recording drain worker for the chaos harness.")
public final class ChaosWorkerMain implements Callable<Integer> {

    @Option(names = "--jdbc-url", required = true, description = "The outbox database (its schema in currentSchema).")
    String jdbcUrl;

    @Option(names = "--table", defaultValue = "leasebox_outbox", description = "The outbox table.")
    String table;

    @Option(names = "--backend", required = true, description = "database, or a lease backend by name.")
    String backend;

    @Option(names = "--address", defaultValue = "", description = "The coordinator address for an external backend.")
    String address;

    @Option(names = "--namespace", defaultValue = "leasebox-chaos", description = "Coordinator namespace.")
    String namespace;

    @Option(names = "--backend-option", description = "NAME=VALUE for the backend (repeatable).")
    Map<String, String> backendOptions = new LinkedHashMap<>();

    @Option(names = "--owner", required = true, description = "This worker's claim owner name.")
    String owner;

    @Option(names = "--lease-ms", defaultValue = "3000", description = "Lease duration in ms.")
    long leaseMillis;

    @Option(names = "--batch", defaultValue = "20", description = "Rows claimed per batch.")
    int batch;

    @Option(names = "--concurrency", defaultValue = "2", description = "Claim loops.")
    int concurrency;

    @Option(names = "--max-attempts", defaultValue = "4", description = "Attempts before dead-lettering.")
    int maxAttempts;

    @Option(names = "--history", required = true, description = "The JSON-lines history file to append to.")
    Path history;

    @Option(names = "--provider", paramLabel = "SPEC", description = "Where entries go, as leasebox worker's --provider"
            + " (default: the jdbc-inbox table in the outbox's database, whose deliveries the harness audits).")
    String providerSpec;

    @Option(names = "--provider-control", description = "A control file for injected provider faults (FaultyProvider).")
    Path providerControl;

    @Option(names = "--write-latency-ms", defaultValue = "0", description = "Hold each completion write this long after recording it.")
    long writeLatencyMillis;

    @Option(names = "--unsafe-no-fence", description = "Completions bypass the token check (chaos harness only).")
    boolean unsafeNoFence;

    @Option(names = "--claim-mode", paramLabel = "recorded|lean", defaultValue = "recorded",
            description = "Row leases through an external backend: leasebox worker's --claim-mode (lean: nothing written before emitting).")
    String claimMode;

    @Option(names = "--release-after-completion", paramLabel = "always|non-terminal", defaultValue = "always",
            description = "Row leases through an external backend: leasebox worker's --release-after-completion "
                    + "(non-terminal: the leases of DELIVERED and DEAD_LETTERED rows lapse at the ttl; redis only).")
    String releaseAfterCompletion;

    @Option(names = "--release-in-background",
            description = "Row leases through an external backend: leasebox worker's --release-in-background.")
    boolean releaseInBackground;

    @Mixin
    GranularityOptions granularity;

    /** Why the worker stopped on its own: a claim-style conflict found by a registration renewal. */
    private volatile String stoppedBecause;

    /** Counted down when the worker is to stop: SIGTERM, or a claim-style conflict. */
    private final CountDownLatch stopped = new CountDownLatch(1);

    /** Counted down once every resource is closed: SIGTERM's hook waits for it (slots released, group left). */
    private final CountDownLatch cleanedUp = new CountDownLatch(1);

    /** The provider named by {@code --provider}, opened as leasebox worker opens it; closed with the worker. */
    private OutboxProvider openProvider(Clock clock, List<AutoCloseable> resources) {
        OutboxProvider provider = ProviderSpec.parse(providerSpec).open(clock, url -> {
            throw new IllegalArgumentException("--provider: the chaos worker opens no database but the outbox's");
        });
        if (provider instanceof AutoCloseable closeable) {
            resources.add(closeable);
        }
        return provider;
    }

    public static void main(String[] args) {
        int code = new CommandLine(new ChaosWorkerMain()).execute(args);
        System.exit(code);
    }

    @Override
    public Integer call() throws Exception {
        granularity.validate();
        ClaimMode rowMode = rowClaimMode();
        TableName tableName = TableName.parse(table);
        Clock clock = MonotonicClock.system();
        List<AutoCloseable> resources = new ArrayList<>();
        try {
            HikariDataSource dataSource = JdbcDataSources.pooled(jdbcUrl, "", "", concurrency + 4);
            resources.add(dataSource);
            JsonLinesFile historyFile = JsonLinesFile.append(history);
            resources.add(historyFile);
            HistoryRecorder recorder = new HistoryRecorder(historyFile, owner, CommonClock.fromDatabase(dataSource),
                    Clock.systemUTC());
            Duration lease = Duration.ofMillis(leaseMillis);
            Optional<LeaseManager> manager = Optional.empty();
            if (!"database".equals(backend)) {
                manager = Optional.of(LeaseGrouping.open(backend, new LeaseBackendSettings(address, namespace, lease, backendOptions), clock));
                resources.add(manager.get());
            }
            Leasebox drain = buildDrain(dataSource, tableName, clock, recorder, manager, rowMode, lease, resources);
            resources.add(drain);
            recorder.started("backend " + backend + (address.isEmpty() ? "" : " at " + address) + ", lease " + lease
                    + ", " + granularity.describe() + (rowMode == ClaimMode.LEAN ? ", lean claims" : "")
                    + (sharesLeases(manager) ? ", " + LeaseGrouping.forBackend(backend, backendOptions) : "")
                    + (releaseInBackground ? ", released in the background" : "")
                    + (ReleaseAfterCompletion.parse(releaseAfterCompletion) == ReleaseAfterCompletion.NON_TERMINAL
                    ? ", terminal leases left to lapse" : "") + (unsafeNoFence ? ", UNSAFE: no fence" : "") + ", pid "
                    + ProcessHandle.current().pid());
            stopOnShutdown(drain);
            drain.start();
            System.out.println("chaos worker " + owner + " draining (pid " + ProcessHandle.current().pid() + ")");
            System.out.flush();
            stopped.await();
            if (stoppedBecause != null) {
                drain.engine().close();
                System.err.println(stoppedBecause);
                return 3;
            }
            return 0;
        } finally {
            closeInReverse(resources);
            cleanedUp.countDown();
        }
    }

    /** {@code --claim-mode}, refused where {@code leasebox worker} refuses it or the chaos options cannot honour it. */
    private ClaimMode rowClaimMode() {
        ClaimMode rowMode = ClaimMode.parse(claimMode);
        if (rowMode == ClaimMode.LEAN && (granularity.isPartition() || "database".equals(backend))) {
            throw new IllegalArgumentException("--claim-mode lean is for row leases through an external backend, as in "
                    + "leasebox worker; with --lease-granularity partition use --partition-claims");
        }
        if (rowMode == ClaimMode.LEAN && unsafeNoFence) {
            throw new IllegalArgumentException("--unsafe-no-fence is not implemented for lean row claims");
        }
        boolean defaultRelease = ReleaseAfterCompletion.parse(releaseAfterCompletion) == ReleaseAfterCompletion.ALWAYS
                && !releaseInBackground;
        if (!defaultRelease && (granularity.isPartition() || "database".equals(backend))) {
            throw new IllegalArgumentException("--release-after-completion and --release-in-background are for row "
                    + "leases through an external backend, as in leasebox worker");
        }
        return rowMode;
    }

    private Leasebox buildDrain(HikariDataSource dataSource, TableName tableName, Clock clock, HistoryRecorder recorder,
                                Optional<LeaseManager> manager, ClaimMode rowMode, Duration lease,
                                List<AutoCloseable> resources) {
        OutboxProvider provider = providerSpec == null ? new JdbcInboxProvider(dataSource) : openProvider(clock, resources);
        if (providerControl != null) {
            provider = new FaultyProvider(provider, providerControl);
        }
        DrainOptions options = DrainOptions.builder().owner(owner).batchSize(batch).leaseDuration(lease)
                .concurrency(concurrency).maxAttempts(maxAttempts).whenAttemptsExhausted(granularity.attemptsExhausted())
                .backoff(Duration.ofMillis(50), Duration.ofMillis(400))
                .idlePolling(Duration.ofMillis(20), Duration.ofMillis(200))
                .shutdownTimeout(Duration.ofSeconds(3)).build();
        boolean leanPartitions = granularity.isPartition() && granularity.claimMode() == ClaimMode.LEAN;
        JdbcOutboxStore rows = JdbcOutboxStore.builder(dataSource).table(tableName).localClock(clock)
                .useClaimLeases(true).open();
        // Built as leasebox worker builds it, through the library's entry point; the history recorder (and, for
        // --unsafe-no-fence, the store that drops the fence) wrap the claim store the drain claims through.
        Leasebox.Builder builder = LeaseboxToolBuilder.drain(dataSource)
                .decorateClaimStore(store -> {
                    OutboxClaimStore claims = unsafeNoFence
                            ? new UnfencedClaimStore(store, leanPartitions ? rows : null, dataSource, tableName.qualified())
                            : store;
                    return new RecordingClaimStore(claims, recorder, clock, Duration.ofMillis(writeLatencyMillis),
                            sharesLeases(manager));
                })
                .table(tableName).provider(provider).options(options).clock(clock).listener(recorder)
                .onRegistryConflict(why -> {
                    stoppedBecause = why;
                    stopped.countDown();
                });
        if (manager.isPresent()) {
            builder.leases(manager.get()).coordinator(backend, address, namespace);
            if (!granularity.isPartition()) {
                // as leasebox worker passes them; the builder refuses non-terminal where leases do not lapse
                builder.rowGrouping(LeaseGrouping.forBackend(backend, backendOptions))
                        .claimMode(rowMode).releaseAfterCompletion(ReleaseAfterCompletion.parse(releaseAfterCompletion))
                        .releaseInBackground(releaseInBackground);
            }
        }
        granularity.configure(builder);
        return builder.build();
    }

    /** Whether rows are granted under leases shared by a group of rows (row leases through a grouped manager). */
    private boolean sharesLeases(Optional<LeaseManager> manager) {
        return !granularity.isPartition() && manager.filter(GroupedLeaseManager.class::isInstance).isPresent();
    }

    /** On SIGTERM: stop claiming, then hold the JVM until the main thread has closed every resource. */
    private void stopOnShutdown(Leasebox drain) {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            drain.engine().close();
            stopped.countDown();
            try {
                // the JVM exits when the hooks end: let the main thread release slots and leave the group first
                cleanedUp.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "chaos-worker-shutdown"));
    }

    private static void closeInReverse(List<AutoCloseable> resources) {
        for (int i = resources.size() - 1; i >= 0; i--) {
            try {
                resources.get(i).close();
            } catch (Exception e) {
                // on the way out; the history already has every line
            }
        }
    }
}
