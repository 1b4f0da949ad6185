package dev.leasebox.chaos.worker;

import com.zaxxer.hikari.HikariDataSource;
import dev.leasebox.chaos.history.JsonLinesFile;
import dev.leasebox.drain.DrainOptions;
import dev.leasebox.drain.OutboxDrain;
import dev.leasebox.drain.OutboxProvider;
import dev.leasebox.jdbc.JdbcDataSources;
import dev.leasebox.jdbc.JdbcOutboxStore;
import dev.leasebox.jdbc.TableName;
import dev.leasebox.lease.LeaseManager;
import dev.leasebox.lease.spi.LeaseBackendSettings;
import dev.leasebox.lease.spi.LeaseBackends;
import dev.leasebox.outbox.OutboxClaimStore;
import dev.leasebox.outbox.leased.LeasedOutboxClaimStore;
import dev.leasebox.provider.JdbcInboxProvider;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

/**
 * A chaos worker JVM: the same drain as {@code leasebox worker} (a {@link JdbcOutboxStore} on
 * PostgreSQL, the {@code database} backend or an external one opened by name and layered with
 * {@link LeasedOutboxClaimStore#open}, the jdbc-inbox provider), plus a {@link HistoryRecorder}
 * writing its history. Runs until SIGTERM (graceful) or SIGKILL. Started by the harness with
 * {@code java} directly, so a signal to its pid reaches this JVM.
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

    @Option(names = "--provider-control", description = "A control file for injected provider faults (FaultyProvider).")
    Path providerControl;

    @Option(names = "--write-latency-ms", defaultValue = "0", description = "Hold each completion write this long after recording it.")
    long writeLatencyMillis;

    @Option(names = "--unsafe-no-fence", description = "Completions bypass the token check (chaos harness only).")
    boolean unsafeNoFence;

    public static void main(String[] args) {
        int code = new CommandLine(new ChaosWorkerMain()).execute(args);
        System.exit(code);
    }

    @Override
    public Integer call() throws Exception {
        TableName tableName = TableName.parse(table);
        Clock clock = Clock.systemUTC();
        List<AutoCloseable> resources = new ArrayList<>();
        try {
            HikariDataSource dataSource = JdbcDataSources.pooled(jdbcUrl, "", "", concurrency + 4);
            resources.add(dataSource);
            JsonLinesFile historyFile = JsonLinesFile.append(history);
            resources.add(historyFile);
            HistoryRecorder recorder = new HistoryRecorder(historyFile, owner, CommonClock.fromDatabase(dataSource), clock);
            JdbcOutboxStore jdbc = JdbcOutboxStore.builder(dataSource).table(tableName).clock(clock)
                    .useClaimLeases(true).open();
            Duration lease = Duration.ofMillis(leaseMillis);
            OutboxClaimStore store = jdbc;
            if (!"database".equals(backend)) {
                LeaseManager manager = LeaseBackends.named(backend)
                        .open(new LeaseBackendSettings(address, namespace, lease, backendOptions));
                resources.add(manager);
                store = LeasedOutboxClaimStore.open(jdbc, manager, clock);
            }
            if (unsafeNoFence) {
                store = new UnfencedClaimStore(store, dataSource, tableName.qualified());
            }
            store = new RecordingClaimStore(store, recorder, clock, Duration.ofMillis(writeLatencyMillis));
            OutboxProvider provider = new JdbcInboxProvider(dataSource);
            if (providerControl != null) {
                provider = new FaultyProvider(provider, providerControl);
            }
            DrainOptions options = DrainOptions.builder().owner(owner).batchSize(batch).leaseDuration(lease)
                    .concurrency(concurrency).maxAttempts(maxAttempts)
                    .backoff(Duration.ofMillis(50), Duration.ofMillis(400))
                    .idlePolling(Duration.ofMillis(20), Duration.ofMillis(200))
                    .shutdownTimeout(Duration.ofSeconds(3)).build();
            OutboxDrain drain = OutboxDrain.builder().store(store).provider(provider).options(options).clock(clock)
                    .listener(recorder).build();
            recorder.started("backend " + backend + (address.isEmpty() ? "" : " at " + address) + ", lease " + lease
                    + (unsafeNoFence ? ", UNSAFE: no fence" : "") + ", pid " + ProcessHandle.current().pid());
            CountDownLatch stopped = new CountDownLatch(1);
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                drain.close();
                stopped.countDown();
            }, "chaos-worker-shutdown"));
            drain.start();
            System.out.println("chaos worker " + owner + " draining (pid " + ProcessHandle.current().pid() + ")");
            System.out.flush();
            stopped.await();
            return 0;
        } finally {
            for (int i = resources.size() - 1; i >= 0; i--) {
                try {
                    resources.get(i).close();
                } catch (Exception e) {
                    // on the way out; the history already has every line
                }
            }
        }
    }
}
