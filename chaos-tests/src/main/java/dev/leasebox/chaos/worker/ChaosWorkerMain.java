package dev.leasebox.chaos.worker;

import dev.leasebox.claim.Granularity;
import dev.leasebox.testing.LeaseboxToolBuilder;
import com.zaxxer.hikari.HikariDataSource;
import dev.leasebox.Leasebox;
import dev.leasebox.LeaseboxSettings;
import dev.leasebox.chaos.harness.PooledDataSources;
import dev.leasebox.chaos.history.JsonLinesFile;
import dev.leasebox.claim.ClaimMode;
import dev.leasebox.claim.LeaseGrouping;
import dev.leasebox.claim.ReleaseAfterCompletion;
import dev.leasebox.claim.grouped.GroupedLeaseManager;
import dev.leasebox.claim.leased.LeasedOutboxClaimStore;
import dev.leasebox.jdbc.lease.ClaimStyleRegistry;
import dev.leasebox.jdbc.store.JdbcOutboxStore;
import dev.leasebox.lease.LeaseManager;
import dev.leasebox.lease.MonotonicClock;
import dev.leasebox.outbox.OutboxClaimStore;
import dev.leasebox.provider.JdbcInboxProvider;
import dev.leasebox.provider.OutboxProvider;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Unmatched;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A chaos worker JVM: the same drain as {@code leasebox worker} (a {@link JdbcOutboxStore} on
 * PostgreSQL, the {@code database} backend or an external one opened by name and layered with
 * {@link LeasedOutboxClaimStore}, the jdbc-inbox provider), plus a {@link HistoryRecorder}
 * writing its history. Runs until SIGTERM (graceful) or SIGKILL. Started by the harness with
 * {@code java} directly, so a signal to its pid reaches this JVM.
 *
 * <p>The drain's flags are {@code leasebox worker}'s: {@code --KEY VALUE} for every key of {@link LeaseboxSettings}
 * ({@code --backend}, {@code --redis URI}, {@code --lease-ttl}, {@code --granularity}, {@code --claim-mode},
 * {@code --release-after-completion}, …) and {@code --backend-option NAME=VALUE}, read and checked by the settings
 * and applied to the library's entry point as the CLI applies them; like it, the worker joins the table's
 * {@link ClaimStyleRegistry}, so a mixed fleet is refused. The chaos defaults are a short backoff, quick idle
 * polling and a 3 s shutdown.
 *
 * <p>Chaos-only options: {@code --jdbc-url}, {@code --history}, {@code --provider-control} (faults switched from
 * outside), {@code --write-latency-ms} (a slow completion path) and {@code --unsafe-no-fence} (completions bypass
 * the token check: the bug the fencing scenarios must catch; never in {@code leasebox worker}).
 */
@Command(name = "chaos-worker", mixinStandardHelpOptions = true, description = "A history-recording drain worker for the chaos harness.")
public final class ChaosWorkerMain implements Callable<Integer> {

    /** The chaos defaults, before the flags: small batches, fast retries and polling, a quick shutdown. */
    private static final List<String> DEFAULTS = List.of("--namespace", "leasebox-chaos", "--batch", "20", "--concurrency", "2",
            "--max-attempts", "4", "--backoff-initial", "50ms", "--backoff-max", "400ms", "--idle-poll-min", "20ms",
            "--idle-poll-max", "200ms", "--shutdown-timeout", "3s");

    @Option(names = "--jdbc-url", required = true, description = "The outbox database (its schema in currentSchema).")
    String jdbcUrl;

    @Option(names = "--history", required = true, description = "The JSON-lines history file to append to.")
    Path history;

    @Option(names = "--provider-control", description = "A control file for injected provider faults (FaultyProvider).")
    Path providerControl;

    @Option(names = "--write-latency-ms", defaultValue = "0", description = "Hold each completion write this long after recording it.")
    long writeLatencyMillis;

    @Option(names = "--unsafe-no-fence", description = "Completions bypass the token check (chaos harness only).")
    boolean unsafeNoFence;

    /** The drain's flags, {@code --KEY VALUE} of the settings' keys, handed to {@link LeaseboxSettings} as text. */
    @Unmatched
    List<String> settingFlags = new ArrayList<>();

    /** Why the worker stopped on its own: a claim-style conflict found by a registration renewal. */
    private volatile String stoppedBecause;

    /** Counted down when the worker is to stop: SIGTERM, or a claim-style conflict. */
    private final CountDownLatch stopped = new CountDownLatch(1);

    /** Counted down once every resource is closed: SIGTERM's hook waits for it (slots released, group left). */
    private final CountDownLatch cleanedUp = new CountDownLatch(1);

    /** The provider named by {@code --provider}, opened as leasebox worker opens it; closed with the worker. */
    private OutboxProvider openProvider(LeaseboxSettings settings, Clock clock, List<AutoCloseable> resources) {
        OutboxProvider provider = settings.provider().orElseThrow().open(clock, url -> {
            throw new IllegalArgumentException("--provider: the chaos worker opens no database but the outbox's");
        });
        if (provider instanceof AutoCloseable closeable) {
            resources.add(closeable);
        }
        return provider;
    }

    /** The chaos defaults, then the flags, read into the settings. */
    LeaseboxSettings settings() {
        LeaseboxSettings.Builder settings = LeaseboxSettings.builder(LeaseboxSettings.Spelling.FLAGS);
        List<String> flags = new ArrayList<>(DEFAULTS);
        flags.addAll(settingFlags);
        for (int i = 0; i < flags.size(); i += 2) {
            String flag = flags.get(i);
            if (!flag.startsWith("--") || i + 1 == flags.size()) {
                throw new IllegalArgumentException("expected --KEY VALUE, was '" + String.join(" ", flags.subList(i, flags.size())) + "'");
            }
            String value = flags.get(i + 1);
            if (flag.equals("--backend-option")) {
                int eq = value.indexOf('=');
                if (eq < 1) {
                    throw new IllegalArgumentException("--backend-option takes NAME=VALUE, was '" + value + "'");
                }
                settings.backendOption(value.substring(0, eq), value.substring(eq + 1));
            } else {
                settings.set(flag.substring(2), value);
            }
        }
        LeaseboxSettings built = settings.build();
        if (built.backend().isEmpty()) {
            throw new IllegalArgumentException("--backend is required: database, or a lease backend by name");
        }
        return built;
    }

    public static void main(String[] args) {
        int code = new CommandLine(new ChaosWorkerMain()).execute(args);
        System.exit(code);
    }

    @Override
    public Integer call() throws Exception {
        LeaseboxSettings settings = settings();
        if (unsafeNoFence && !settings.granularity().equals(Granularity.PARTITION)
                && settings.claimMode().orElse(ClaimMode.RECORDED) == ClaimMode.LEAN) {
            throw new IllegalArgumentException("--unsafe-no-fence is not implemented for lean row claims");
        }
        String owner = settings.options().owner();
        Clock clock = MonotonicClock.system();
        List<AutoCloseable> resources = new ArrayList<>();
        try {
            HikariDataSource dataSource = PooledDataSources.pooled(jdbcUrl, settings.options().concurrency() + 4);
            resources.add(dataSource);
            JsonLinesFile historyFile = JsonLinesFile.append(history);
            resources.add(historyFile);
            HistoryRecorder recorder = new HistoryRecorder(historyFile, owner, CommonClock.fromDatabase(dataSource),
                    Clock.systemUTC());
            Optional<LeaseManager> manager = settings.openLeases(clock);
            manager.ifPresent(resources::add);
            boolean sharesLeases = sharesLeases(settings, manager);
            Leasebox drain = buildDrain(settings, dataSource, clock, recorder, manager, sharesLeases, resources);
            resources.add(drain);
            String backend = settings.backend().orElseThrow();
            recorder.started("backend " + backend + (settings.address().isEmpty() ? "" : " at " + settings.address())
                    + ", lease " + settings.options().leaseDuration() + ", " + settings.describe()
                    + (sharesLeases ? ", " + LeaseGrouping.forBackend(backend, settings.backendOptions()) : "")
                    + (settings.releaseInBackground() ? ", released in the background" : "")
                    + (settings.releaseAfterCompletion() == ReleaseAfterCompletion.NON_TERMINAL
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

    private Leasebox buildDrain(LeaseboxSettings settings, HikariDataSource dataSource, Clock clock, HistoryRecorder recorder,
                                Optional<LeaseManager> manager, boolean sharesLeases, List<AutoCloseable> resources) {
        OutboxProvider provider = settings.provider().isEmpty() ? new JdbcInboxProvider(dataSource)
                : openProvider(settings, clock, resources);
        if (providerControl != null) {
            provider = new FaultyProvider(provider, providerControl);
        }
        boolean leanPartitions = settings.granularity() == Granularity.PARTITION
                && settings.claimMode().orElse(ClaimMode.LEAN) == ClaimMode.LEAN;
        JdbcOutboxStore rows = JdbcOutboxStore.builder(dataSource).table(settings.table()).localClock(clock)
                .useClaimLeases(true).open();
        // Built as leasebox worker builds it, through the library's entry point; the history recorder (and, for
        // --unsafe-no-fence, the store that drops the fence) wrap the claim store the drain claims through.
        LeaseboxToolBuilder tool = LeaseboxToolBuilder.drain(dataSource);
        tool.decorateClaimStore(store -> {
            OutboxClaimStore claims = unsafeNoFence
                    ? new UnfencedClaimStore(store, leanPartitions ? rows : null, dataSource, settings.table().qualified())
                    : store;
            return new RecordingClaimStore(claims, recorder, clock, Duration.ofMillis(writeLatencyMillis), sharesLeases);
        });
        return settings.applyTo(tool, manager).provider(provider).clock(clock).listener(recorder)
                .onRegistryConflict(why -> {
                    stoppedBecause = why;
                    stopped.countDown();
                })
                .build();
    }

    /** Whether rows are granted under leases shared by a group of rows (row leases through a grouped manager). */
    private static boolean sharesLeases(LeaseboxSettings settings, Optional<LeaseManager> manager) {
        return settings.granularity() == Granularity.ROW
                && manager.filter(GroupedLeaseManager.class::isInstance).isPresent();
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
