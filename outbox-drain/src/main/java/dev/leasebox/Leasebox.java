package dev.leasebox;

import dev.leasebox.claim.ClaimMode;
import dev.leasebox.claim.Granularity;
import dev.leasebox.claim.LeaseGrouping;
import dev.leasebox.claim.ReleaseAfterCompletion;
import dev.leasebox.claim.grouped.GroupedLeaseManager;
import dev.leasebox.claim.leased.LeasedOutboxClaimStore;
import dev.leasebox.claim.partition.PartitionedOutboxClaimStore;
import dev.leasebox.drain.DrainListener;
import dev.leasebox.drain.DrainOptions;
import dev.leasebox.drain.OutboxDrain;
import dev.leasebox.jdbc.DatabaseKind;
import dev.leasebox.jdbc.OutboxWriter;
import dev.leasebox.jdbc.TableName;
import dev.leasebox.jdbc.lease.ClaimStyleRegistry;
import dev.leasebox.jdbc.lease.JdbcLeaseManager;
import dev.leasebox.jdbc.lease.JdbcSlotStore;
import dev.leasebox.jdbc.lease.JdbcWorkerGroup;
import dev.leasebox.jdbc.store.JdbcOutboxStore;
import dev.leasebox.lease.LeaseManager;
import dev.leasebox.lease.MonotonicClock;
import dev.leasebox.lease.spi.GroupRowsByDefault;
import dev.leasebox.metrics.MeteredLeaseManager;
import dev.leasebox.outbox.FencedOutboxStore;
import dev.leasebox.outbox.OutboxClaimStore;
import dev.leasebox.provider.ErrorClassifier;
import dev.leasebox.provider.OutboxProvider;

import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

/**
 * The library's entry point: a drain of one outbox table, built from a {@link DataSource}.
 *
 * <pre>{@code
 * Leasebox drain = Leasebox.drain(dataSource).leases(redisLeaseManager).provider(myProvider).build();
 * drain.start();   // claim loops run until drain.close()
 * }</pre>
 *
 * <p>Without {@link Builder#leases}, rows are claimed in the database ({@code FOR UPDATE SKIP LOCKED}
 * on PostgreSQL and MariaDB) and the claim token comes from a database sequence. With a {@link LeaseManager}
 * (ZooKeeper, Redis, Hazelcast, or any implementation of the SPI), each row (or, with
 * {@link Granularity#PARTITION}, each slot of the table) is leased from it and the lease's fence is
 * the claim token every completion is checked against.
 *
 * <p>A built drain joins the table's claim-style registry (V4): a worker whose claims cannot exclude
 * the table's live workers (lean claims beside recorded ones, or lean claims through another
 * coordinator) is refused at {@link Builder#build()} with one line saying which. What the drain
 * opened itself (the JDBC store, the in-table lease manager of partition leases, the slot keeper,
 * the registration) is closed by {@link #close()}; the {@link DataSource}, the {@link LeaseManager}
 * and the provider belong to the caller.
 *
 * <p><b>Wake-ups</b> ({@link Builder#wakeUps(boolean)}, on by default): an idle drain looks as soon as it hears
 * that entries were committed, instead of at its next poll. It hears it from Leasebox writers of its own JVM
 * on every database; on PostgreSQL from the table's commit notifications (V7's trigger, whoever wrote); and
 * from writers of other processes through the lease manager's {@link dev.leasebox.lease.WakeUpChannel} where it
 * offers one ({@link #writer()} publishes there). Polling stays the safety net for every hint that is lost.
 *
 * <p>Benchmarks and tests that need to reach inside a drain (time or wrap its stores, skip the registry on a
 * table they own, halt a worker as a crash would) build it with {@code dev.leasebox.testing.LeaseboxToolBuilder},
 * whose hooks are tooling, not API.
 */
public final class Leasebox implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(Leasebox.class);

    private final OutboxDrain drain;
    private final OutboxClaimStore claimStore;
    private final List<AutoCloseable> resources;
    private final String description;
    private final OutboxWriter writer;
    private final String wokenBy; // null: wake-ups off

    private Leasebox(OutboxDrain drain, OutboxClaimStore claimStore, List<AutoCloseable> resources, String description,
                     OutboxWriter writer, String wokenBy) {
        this.drain = drain;
        this.claimStore = claimStore;
        this.resources = resources;
        this.description = description;
        this.writer = writer;
        this.wokenBy = wokenBy;
    }

    /** Starts building a drain of the outbox table in {@code dataSource}. */
    public static Builder drain(DataSource dataSource) {
        return new Builder(dataSource);
    }
    /**
     * Starts the claim loops, and listens for wake-ups; they run until {@link #close()}. The same as
     * {@code engine().start()}: the engine starts and stops the drain's wake-up sources itself.
     */
    public void start() {
        drain.start();
    }

    /**
     * Stops claiming, lets claims in flight finish or releases them, then closes what the drain opened,
     * in reverse order. Safe to call more than once.
     */
    @Override
    public void close() {
        drain.close();
        for (int i = resources.size() - 1; i >= 0; i--) {
            try {
                resources.get(i).close();
            } catch (Exception e) { // closing on the way out: every resource gets its chance
            }
        }
        resources.clear();
    }

    /** The engine: {@link OutboxDrain#runOnce()} and {@link OutboxDrain#drainUntilIdle(int)} for jobs and tests. */
    public OutboxDrain engine() {
        return drain;
    }

    /** The claim store the drain claims through. */
    public OutboxClaimStore claimStore() {
        return claimStore;
    }
    /** The options the drain runs with (owner, batch, lease duration, …). */
    public DrainOptions options() {
        return drain.options();
    }
    /** How this drain claims, in one line: granularity, claim mode, lease manager, and what wakes it. */
    public String describe() {
        return description + (wokenBy == null ? "; wake-ups off" : "; woken by " + wokenBy);
    }

    /**
     * A writer of this drain's table that wakes its drains: in this JVM, and in other processes through the
     * lease manager's wake-up channel where it offers one.
     */
    public OutboxWriter writer() {
        return writer;
    }

    /**
     * Builds a {@link Leasebox}; every setting has a default except the provider.
     *
     * <p>Its protected members are the hooks of {@code dev.leasebox.testing.LeaseboxToolBuilder}, for benchmarks
     * and tests; they are not API and may change with any version.
     */
    public static class Builder {
        private final DataSource dataSource;
        private TableName table = TableName.DEFAULT;
        private LeaseManager leases;
        private LeaseGrouping rowGrouping; // null: the manager's default
        private String coordinatorName;
        private String coordinatorAddress;
        private String coordinatorNamespace;
        private Granularity granularity = Granularity.ROW;
        private ClaimMode claimMode;
        private boolean ordered;
        private Integer expectedSlots;
        private ReleaseAfterCompletion releaseAfterCompletion = ReleaseAfterCompletion.ALWAYS;
        private boolean releaseInBackground;
        private int candidateOverAsk = 2;
        private int candidateSpread = 4;
        private OutboxProvider provider;
        private DrainOptions options = DrainOptions.defaults();
        private Clock clock = MonotonicClock.system();
        private DrainListener listener;
        private ErrorClassifier errorClassifier = ErrorClassifier.allRetryable();
        private MeterRegistry leaseMeters; // null: leases not metered here
        private UnaryOperator<OutboxClaimStore> decorateClaimStore = UnaryOperator.identity();
        private UnaryOperator<FencedOutboxStore> decorateFencedStore = UnaryOperator.identity();
        private Consumer<JdbcOutboxStore.Builder> configureStore = store -> { };
        private boolean joinRegistry = true;
        private Consumer<String> onRegistryConflict = why -> { };
        private boolean wakeUps = true;

        /** A builder of a drain of the outbox table in {@code dataSource}: for {@code LeaseboxToolBuilder}. */
        protected Builder(DataSource dataSource) {
            this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        }

        /** The outbox table, {@code name} or {@code schema.name} (default {@code leasebox_outbox}, as the CLI and the starter). */
        public Builder table(String name) {
            return table(TableName.parse(name));
        }

        /** The outbox table. */
        public Builder table(TableName name) {
            this.table = Objects.requireNonNull(name, "table");
            return this;
        }

        /**
         * Leases rows (or slots) from {@code manager} instead of claiming them in the database. The
         * manager stays the caller's: the drain does not close it.
         *
         * <p>Row leases from a manager for which a lease per row is costly (Hazelcast, ZooKeeper: it
         * implements {@link GroupRowsByDefault}) are grouped under shared leases as
         * {@link LeaseGrouping#DEFAULT} says, as the CLI and the starter group them; {@link #rowGrouping}
         * sets another grouping or {@link LeaseGrouping#NONE}, a lease per row.
         */
        public Builder leases(LeaseManager manager) {
            this.leases = Objects.requireNonNull(manager, "manager");
            return this;
        }

        /**
         * Row leases through {@link #leases}: how rows share leases, {@link LeaseGrouping#NONE} for a lease
         * per row. Default: {@link LeaseGrouping#DEFAULT} for a manager that implements
         * {@link GroupRowsByDefault}, {@link LeaseGrouping#NONE} for the others. Every worker of one
         * namespace must use the same grouping. A manager that already groups rows (a
         * {@link GroupedLeaseManager}) is used as it is, and must group as this says.
         */
        public Builder rowGrouping(LeaseGrouping grouping) {
            this.rowGrouping = Objects.requireNonNull(grouping, "grouping");
            return this;
        }

        /**
         * Names the coordinator behind {@link #leases} for the table's claim-style registry: lean workers
         * share a table only with lean workers of the same backend, address and namespace. Without it, the
         * manager's {@link LeaseManager#describe()} is the name, so lean workers whose managers describe
         * themselves differently are refused as strangers (the safe side).
         */
        public Builder coordinator(String backend, String address, String namespace) {
            this.coordinatorName = Objects.requireNonNull(backend, "backend");
            this.coordinatorAddress = Objects.requireNonNull(address, "address");
            this.coordinatorNamespace = Objects.requireNonNull(namespace, "namespace");
            return this;
        }

        /** Row leases (default) or partition leases over the table's slots. */
        public Builder granularity(Granularity granularity) {
            this.granularity = Objects.requireNonNull(granularity, "granularity");
            return this;
        }

        /**
         * Recorded claims write each claim to its row before emitting; lean claims write nothing before
         * emitting and check the lease's fence in the completion (see {@link ClaimMode}). Default:
         * recorded for row leases, lean for partition leases. The database claims (no {@link #leases}
         * and row granularity) are always recorded.
         */
        public Builder claimMode(ClaimMode mode) {
            this.claimMode = Objects.requireNonNull(mode, "mode");
            return this;
        }

        /** With partition leases: emit each partition key's entries one at a time, in id order. */
        public Builder ordered(boolean ordered) {
            this.ordered = ordered;
            return this;
        }

        /** With partition leases: the slot count the table must have (checked at build). */
        public Builder expectSlots(int slots) {
            this.expectedSlots = slots;
            return this;
        }

        /** Row leases through {@link #leases}: which leases to release after completion (default: always). */
        public Builder releaseAfterCompletion(ReleaseAfterCompletion release) {
            this.releaseAfterCompletion = Objects.requireNonNull(release, "release");
            return this;
        }

        /** Row leases through {@link #leases}: release completed batches' leases from a background thread. */
        public Builder releaseInBackground(boolean inBackground) {
            this.releaseInBackground = inBackground;
            return this;
        }

        /**
         * Row leases through {@link #leases}: the candidate window. Ask for {@code overAsk} times a batch's
         * rows (1..10, default 2) picked at random among the oldest {@code spread} batches' worth
         * (1..100, default 4), so that workers racing for leases mostly ask for different rows.
         */
        public Builder candidateWindow(int overAsk, int spread) {
            if (overAsk < 1 || overAsk > LeaseboxSettings.MAX_CANDIDATE_OVER_ASK) {
                throw new IllegalArgumentException("candidate over-ask must be in 1.." + LeaseboxSettings.MAX_CANDIDATE_OVER_ASK
                        + ", was " + overAsk);
            }
            if (spread < 1 || spread > JdbcOutboxStore.MAX_CANDIDATE_SPREAD) {
                throw new IllegalArgumentException("candidate spread must be in 1.." + JdbcOutboxStore.MAX_CANDIDATE_SPREAD
                        + ", was " + spread);
            }
            this.candidateOverAsk = overAsk;
            this.candidateSpread = spread;
            return this;
        }

        /**
         * Everything {@code settings} say but the leases and the provider (see {@link LeaseboxSettings#applyTo}):
         * how the CLI, the starter and the chaos workers set a drain from text.
         */
        public Builder settings(LeaseboxSettings settings) {
            settings.applyTo(this);
            return this;
        }

        /** Where entries go. Required. */
        public Builder provider(OutboxProvider provider) {
            this.provider = Objects.requireNonNull(provider, "provider");
            return this;
        }

        /** Batch, concurrency, lease duration, attempts, owner… (default {@link DrainOptions#defaults()}). */
        public Builder options(DrainOptions options) {
            this.options = Objects.requireNonNull(options, "options");
            return this;
        }

        /** The clock of local deadlines (default: monotonic); expiry in the table is judged by the database. */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * Which exceptions thrown by the provider are permanent: the entry is then dead-lettered at once
         * instead of retried (default: none, {@link ErrorClassifier#allRetryable()}). For example
         * {@code ErrorClassifier.permanentFor(IllegalArgumentException.class)}.
         */
        public Builder errorClassifier(ErrorClassifier classifier) {
            this.errorClassifier = Objects.requireNonNull(classifier, "classifier");
            return this;
        }

        /** Told of every cycle, claim, emission and completion (metrics, logs). */
        public Builder listener(DrainListener listener) {
            this.listener = Objects.requireNonNull(listener, "listener");
            return this;
        }

        /**
         * Meters the leases the drain takes in {@code registry} ({@link MeteredLeaseManager}: {@code leasebox.leases}
         * granted, refused and lost, {@code leasebox.leases.held}, {@code leasebox.lease.calls} latency): those of
         * the manager given to {@link #leases}, unless it is metered already, and those of the table's own lease
         * manager that partition leases without {@link #leases} open. The drain's emissions and claims are counted
         * by {@code listener(new DrainMetrics(registry))}. Needs Micrometer on the class path.
         */
        public Builder meterLeases(MeterRegistry registry) {
            this.leaseMeters = Objects.requireNonNull(registry, "registry");
            return this;
        }

        /**
         * Called, from a background thread, when this worker's registration in the table's claim-style
         * registry is lost to a worker it cannot share the table with; the drain should stop. Default:
         * nothing.
         */
        public Builder onRegistryConflict(Consumer<String> onConflict) {
            this.onRegistryConflict = Objects.requireNonNull(onConflict, "onConflict");
            return this;
        }

        /**
         * Tooling: wraps the claim store the drain claims through (timing, history recording, fault injection).
         * The wrapper must forward every call; it sees claims and completions exactly as the engine makes them.
         */
        protected Builder decorateClaimStore(UnaryOperator<OutboxClaimStore> decorator) {
            this.decorateClaimStore = Objects.requireNonNull(decorator, "decorator");
            return this;
        }

        /**
         * Tooling: wraps the table store that row leases from {@link #leases} are recorded on (timing or
         * tracing the store's round trips). The wrapper must forward every call.
         */
        protected Builder decorateFencedStore(UnaryOperator<FencedOutboxStore> decorator) {
            this.decorateFencedStore = Objects.requireNonNull(decorator, "decorator");
            return this;
        }

        /**
         * Tooling: adjusts the JDBC store before it opens, after the drain's own settings (the bench's
         * {@code --claim-records relaxed}); the store's defaults are the safe ones.
         */
        protected Builder configureStore(Consumer<JdbcOutboxStore.Builder> configure) {
            this.configureStore = Objects.requireNonNull(configure, "configure");
            return this;
        }

        /**
         * Tooling: skips the claim-style registry, for tests and benchmarks that own the table: a fleet that
         * mixes claim styles is then not refused.
         */
        protected Builder withoutClaimStyleRegistry() {
            this.joinRegistry = false;
            return this;
        }

        /**
         * Whether the drain is woken when entries are committed (default true): by Leasebox writers in this JVM,
         * on PostgreSQL by the table's commit notifications (one held connection per DataSource), and through
         * the lease manager's wake-up channel where it offers one. Only the first claim loop then polls while
         * idle, at the idle backoff, as the safety net. Off: every loop polls and nothing listens.
         */
        public Builder wakeUps(boolean wakeUps) {
            this.wakeUps = wakeUps;
            return this;
        }

        /** Opens the store and the claim path and registers the worker; nothing runs until {@link Leasebox#start()}. */
        public Leasebox build() {
            if (provider == null) {
                throw new IllegalStateException("Leasebox.drain(…) needs a provider: call .provider(…) with where entries go");
            }
            boolean partition = granularity == Granularity.PARTITION;
            ClaimMode mode = claimMode != null ? claimMode : partition ? ClaimMode.LEAN : ClaimMode.RECORDED;
            if (!partition && leases == null && mode != ClaimMode.RECORDED) {
                throw new IllegalStateException("lean claims need a lease manager (.leases(…)) or partition leases: "
                        + "the database backend claims in the row itself");
            }
            if (partition && (releaseAfterCompletion != ReleaseAfterCompletion.ALWAYS || releaseInBackground)) {
                throw new IllegalStateException("releaseAfterCompletion and releaseInBackground are for row leases; "
                        + "partition leases keep their slots until the worker stops");
            }
            if (!partition && (ordered || expectedSlots != null)) {
                throw new IllegalStateException("ordered and expectSlots need .granularity(Granularity.PARTITION)");
            }
            if (rowGrouping != null && (partition || leases == null)) {
                throw new IllegalStateException("rowGrouping is for row leases through .leases(…); partition leases and the "
                        + "database backend lease no rows");
            }
            List<AutoCloseable> resources = new ArrayList<>();
            try {
                // the manager the claims lease from: the caller's, with its rows grouped as set (row leases)
                LeaseManager leases = metered(partition || this.leases == null ? this.leases : groupedAsSet(this.leases, resources));
                JdbcOutboxStore.Builder store = JdbcOutboxStore.builder(dataSource).table(table).localClock(clock)
                        .useClaimLeases(true).candidateSpread(leases == null ? 1 : candidateSpread);
                configureStore.accept(store);
                JdbcOutboxStore jdbc = store.open();
                OutboxClaimStore claims = partition ? openPartitioned(jdbc, mode, leases, resources) : openRows(jdbc, mode, leases);
                if (claims instanceof AutoCloseable closeable && claims != jdbc) {
                    resources.add(closeable);
                }
                OutboxClaimStore engineClaims = claims;
                if (joinRegistry) {
                    ClaimStyleRegistry registry = ClaimStyleRegistry.join(dataSource, jdbc, options.owner(),
                            claimPath(mode, leases).claimStyle(), ClaimStyleRegistry.validityFor(options.leaseDuration()), onRegistryConflict);
                    resources.add(registry);
                    claims.addClaimLossListener(registry.takeovers()); // the table's count of takeovers (V8)
                    engineClaims = new RegisteredClaims(claims, registry);
                }
                OutboxDrain.Builder engine = OutboxDrain.builder().store(decorateClaimStore.apply(engineClaims)).provider(provider)
                        .options(options).clock(clock).errorClassifier(errorClassifier).wakeUps(wakeUps);
                Optional.ofNullable(listener).ifPresent(engine::listener);
                DatabaseKind kind = jdbc.dialect().kind();
                if (wakeUps) {
                    engine.wakeUpsFrom(d -> new WakeUpSources(dataSource, jdbc.table(), kind, leases, d));
                }
                OutboxDrain drain = engine.build();
                OutboxWriter writer = leases == null ? jdbc.writer() : jdbc.writer().wakeUpsThrough(leases);
                return new Leasebox(drain, claims, resources, claimPath(mode, leases).describe(), writer,
                        wakeUps ? WakeUpSources.describe(kind, leases) : null);
            } catch (RuntimeException e) {
                for (int i = resources.size() - 1; i >= 0; i--) {
                    try {
                        resources.get(i).close();
                    } catch (Exception suppressed) {
                        e.addSuppressed(suppressed);
                    }
                }
                throw e;
            }
        }

        /**
         * {@code manager} with its rows grouped as {@link #rowGrouping} (or the manager's default) says. A
         * grouping layer opened here is the drain's: closed with it, leaving {@code manager} open.
         */
        private LeaseManager groupedAsSet(LeaseManager manager, List<AutoCloseable> resources) {
            Optional<GroupedLeaseManager> grouped = manager.as(GroupedLeaseManager.class);
            if (grouped.isPresent()) {
                if (rowGrouping != null && !rowGrouping.equals(grouped.get().grouping())) {
                    throw new IllegalStateException("rowGrouping(" + rowGrouping + ") differs from the grouping of the lease "
                            + "manager given to .leases(…), which already groups rows (" + grouped.get().grouping() + ")");
                }
                return manager;
            }
            Optional<GroupRowsByDefault> costly = manager.as(GroupRowsByDefault.class);
            LeaseGrouping grouping = rowGrouping != null ? rowGrouping : costly.isPresent() ? LeaseGrouping.DEFAULT : LeaseGrouping.NONE;
            if (!grouping.grouped()) {
                costly.filter(c -> rowGrouping != null).ifPresent(c -> log.info("Leasing a row at a time through {} as set "
                        + "(rowGrouping NONE), although {}", manager.describe(), c.whyGroupRows()));
                return manager;
            }
            GroupedLeaseManager groupedHere = GroupedLeaseManager.builder(manager, grouping).clock(clock).leaveDelegateOpen().open();
            resources.add(groupedHere);
            return groupedHere;
        }

        /** {@code manager} metered in {@link #meterLeases}'s registry, unless it is null, metered already or not to be. */
        private LeaseManager metered(LeaseManager manager) {
            if (leaseMeters == null || manager == null || manager.as(MeteredLeaseManager.class).isPresent()) {
                return manager;
            }
            return new MeteredLeaseManager(manager, leaseMeters);
        }

        private OutboxClaimStore openRows(JdbcOutboxStore jdbc, ClaimMode mode, LeaseManager leases) {
            if (leases == null) {
                return jdbc;
            }
            return LeasedOutboxClaimStore.builder(decorateFencedStore.apply(jdbc), leases, clock).claimMode(mode)
                    .releaseAfterCompletion(releaseAfterCompletion).releaseInBackground(releaseInBackground)
                    .candidateOverAsk(candidateOverAsk).open();
        }

        private OutboxClaimStore openPartitioned(JdbcOutboxStore jdbc, ClaimMode mode, LeaseManager leases,
                                                 List<AutoCloseable> resources) {
            JdbcSlotStore slotStore = JdbcSlotStore.open(dataSource, jdbc, clock);
            if (expectedSlots != null && expectedSlots != slotStore.slotCount()) {
                throw new IllegalArgumentException("the table " + jdbc.table() + " has " + slotStore.slotCount()
                        + " slots (fixed when V3 was applied), not " + expectedSlots);
            }
            LeaseManager manager = leases;
            if (manager == null) {
                LeaseManager inTable = JdbcLeaseManager.builder(dataSource).table(jdbc.table()).localClock(clock).open();
                resources.add(inTable);
                manager = metered(inTable);
            }
            Duration ttl = options.leaseDuration();
            return PartitionedOutboxClaimStore.open(jdbc, slotStore, manager, new JdbcWorkerGroup(dataSource, jdbc, clock),
                    options.owner(), ttl, PartitionedOutboxClaimStore.defaultTickInterval(ttl), ordered,
                    mode, clock);
        }

        private ClaimPath claimPath(ClaimMode mode, LeaseManager leases) {
            return new ClaimPath(granularity, mode, leases, coordinatorName, coordinatorAddress, coordinatorNamespace,
                    releaseAfterCompletion, releaseInBackground, ordered);
        }
    }
}
