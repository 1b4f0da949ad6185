package dev.leasebox.cli;

import dev.leasebox.Leasebox;
import dev.leasebox.jdbc.OutboxTableStatus;
import com.zaxxer.hikari.HikariDataSource;
import dev.leasebox.claim.LeaseGrouping;
import dev.leasebox.cli.embedded.EmbeddedCoordinator;
import dev.leasebox.cli.embedded.EmbeddedCoordinators;
import dev.leasebox.drain.DrainListener;
import dev.leasebox.drain.DrainOptions;
import dev.leasebox.drain.OutboxDrain;
import dev.leasebox.jdbc.DatabaseKind;
import dev.leasebox.jdbc.LeaseboxSchema;
import dev.leasebox.lease.spi.LeaseBackendSettings;
import dev.leasebox.metrics.DrainMetrics;
import dev.leasebox.metrics.MeteredLeaseManager;
import dev.leasebox.provider.Envelope;
import dev.leasebox.provider.OutboxProvider;
import dev.leasebox.provider.ProviderOutcome;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.PrintWriter;
import java.sql.SQLException;
import dev.leasebox.lease.MonotonicClock;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;

/**
 * The zero-setup demo: an embedded H2 outbox, an embedded coordinator, three workers, one of them
 * killed mid-run; its entries are reclaimed after their leases expire, with higher fences.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
        header = "Run three workers on an embedded outbox and coordinator, kill one, and watch its entries reclaimed.",
        description = {"Run three workers over an embedded H2 outbox and an embedded coordinator; kill one mid-run",
                "and watch its entries being reclaimed with higher fences. Needs no server; under a minute."})
final class DemoCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--backend", defaultValue = "zookeeper", paramLabel = "zookeeper|hazelcast",
            description = "The embedded coordinator (default: ${DEFAULT-VALUE}).")
    String backend;

    @Option(names = "--entries", defaultValue = "10000", paramLabel = "N", description = "Entries to drain (default: ${DEFAULT-VALUE}).")
    int entries;

    @Option(names = "--workers", defaultValue = "3", paramLabel = "N", description = "Workers (default: ${DEFAULT-VALUE}).")
    int workers;

    @Option(names = "--lease-ttl", defaultValue = "5s", converter = DurationConverter.class, paramLabel = "DURATION",
            description = "Lease duration (default: ${DEFAULT-VALUE}).")
    Duration leaseTtl;

    @Option(names = "--emit-millis", defaultValue = "2", paramLabel = "MS", description = "Simulated provider latency per entry (default: ${DEFAULT-VALUE}).")
    int emitMillis;

    @Option(names = "--no-kill", description = "Do not kill a worker.")
    boolean noKill;

    @Override
    public Integer call() throws Exception {
        if (entries < 1 || workers < 2 && !noKill || workers < 1) {
            throw new IllegalArgumentException("the demo needs --entries ≥ 1 and --workers ≥ 2 (or --no-kill)");
        }
        PrintWriter out = spec.commandLine().getOut();
        if (!EmbeddedCoordinators.BACKENDS.contains(backend)) {
            throw new IllegalArgumentException("the demo runs its coordinator embedded: use --backend zookeeper or hazelcast, not '"
                    + backend + "'");
        }
        Clock clock = MonotonicClock.system();
        List<AutoCloseable> resources = new ArrayList<>();
        try {
            out.println("Starting an embedded " + backend + " coordinator and an H2 outbox...");
            out.flush();
            EmbeddedCoordinator coordinator = EmbeddedCoordinators.start(backend, Map.of());
            resources.add(coordinator);
            DatabaseOptions database = new DatabaseOptions();
            database.table = "leasebox_outbox";
            HikariDataSource dataSource = filledOutbox(database, resources);

            DemoLedger ledger = new DemoLedger();
            DemoKillSwitch killSwitch = new DemoKillSwitch();
            String victimOwner = noKill ? "" : "worker-2";
            List<DemoWorker> crew = new ArrayList<>();
            for (int i = 1; i <= workers; i++) {
                String owner = "worker-" + i;
                DemoProvider provider = new DemoProvider(owner, owner.equals(victimOwner), ledger, killSwitch, emitMillis);
                crew.add(newWorker(owner, provider, coordinator, dataSource, database, clock, ledger, resources));
            }
            out.println("Draining " + String.format("%,d", entries) + " entries with " + workers + " workers through "
                    + crew.get(0).manager().describe() + ", lease " + leaseTtl + "...");
            out.flush();
            DemoRun run = new DemoRun(crew, ledger, new OutboxTableStatus(dataSource, database.tableName()), clock, entries,
                    noKill ? null : crew.get(1), killSwitch, out);
            return run.execute() ? CliErrors.EXIT_OK : CliErrors.EXIT_CHECK_FAILED;
        } finally {
            WorkerCommand.closeAll(resources);
        }
    }

    /** A pooled in-memory H2 outbox with the schema applied and {@code --entries} entries enqueued. */
    private HikariDataSource filledOutbox(DatabaseOptions database, List<AutoCloseable> resources) throws SQLException {
        HikariDataSource dataSource = JdbcDataSources.pooled("jdbc:h2:mem:leasebox-demo-" + UUID.randomUUID()
                + ";DB_CLOSE_DELAY=-1", "", "", workers * 2 + 2);
        resources.add(dataSource);
        new LeaseboxSchema(DatabaseKind.H2, database.tableName()).applyAll(dataSource);
        EnqueueCommand.enqueue(dataSource, database, entries, 0, 64, "demo.event",
                new Progress(spec.commandLine().getErr(), "enqueue", entries));
        spec.commandLine().getErr().println();
        return dataSource;
    }

    private DemoWorker newWorker(String owner, DemoProvider provider, EmbeddedCoordinator coordinator,
                                 HikariDataSource dataSource, DatabaseOptions database, Clock clock, DemoLedger ledger,
                                 List<AutoCloseable> resources) {
        MeteredLeaseManager manager = new MeteredLeaseManager(LeaseGrouping.open(backend, new LeaseBackendSettings(
                coordinator.address(), "leasebox-demo", leaseTtl, coordinator.clientOptions()), clock), new SimpleMeterRegistry());
        resources.add(manager);
        DrainMetrics metrics = new DrainMetrics(new SimpleMeterRegistry());
        Leasebox worker = Leasebox.drain(dataSource).table(database.tableName()).leases(manager)
                .candidateWindow(2, workers + 1)
                .provider(provider)
                .options(DrainOptions.builder().owner(owner).batchSize(50).leaseDuration(leaseTtl).build())
                .clock(clock).listener(DrainListener.all(metrics, ledger.lossesOf(owner))).build();
        resources.add(worker);
        OutboxDrain drain = worker.engine();
        return new DemoWorker(owner, drain, manager, metrics);
    }

    /** The simulated provider: records each emission in the ledger; the victim's emissions may trip the kill switch. */
    private record DemoProvider(String owner, boolean victim, DemoLedger ledger, DemoKillSwitch killSwitch, int emitMillis)
            implements OutboxProvider {

        @Override
        public ProviderOutcome emit(Envelope envelope) throws Exception {
            if (victim) {
                killSwitch.onEmission();
            }
            ledger.emitted(envelope.entryId(), envelope.fence().orElse(0), owner);
            if (emitMillis > 0) {
                Thread.sleep(emitMillis); // the simulated provider's own latency, not synchronisation
            }
            return ProviderOutcome.delivered();
        }
    }

    /** One worker of the demo. */
    record DemoWorker(String owner, OutboxDrain drain, MeteredLeaseManager manager, DrainMetrics metrics) {
    }
}
