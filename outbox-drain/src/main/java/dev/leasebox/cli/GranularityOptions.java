package dev.leasebox.cli;

import dev.leasebox.drain.DrainOptions;
import dev.leasebox.jdbc.JdbcLeaseManager;
import dev.leasebox.jdbc.JdbcOutboxStore;
import dev.leasebox.jdbc.JdbcSlotStore;
import dev.leasebox.jdbc.JdbcWorkerGroup;
import dev.leasebox.lease.LeaseManager;
import dev.leasebox.metrics.MeteredLeaseManager;
import dev.leasebox.outbox.OutboxClaimStore;
import dev.leasebox.outbox.partition.PartitionClaims;
import dev.leasebox.outbox.partition.PartitionedOutboxClaimStore;
import io.micrometer.core.instrument.MeterRegistry;
import picocli.CommandLine.Option;

import javax.sql.DataSource;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * What a worker leases: rows (the default) or slots of the table (partition leases), and per-key ordering.
 * Public so that a harness running the same drain ({@code chaos-tests}' worker) builds its claim store
 * exactly as {@code leasebox worker} does: as a picocli mixin (the same options), or through {@link #of}.
 */
public final class GranularityOptions {

    @Option(names = "--lease-granularity", paramLabel = "row|partition", defaultValue = "row",
            description = {"row: lease each claimed row through the backend (default).",
                    "partition: lease the table's slots (V3) and claim their rows in the database; the backend leaves the per-row path."})
    String granularity;

    @Option(names = "--slots", paramLabel = "N",
            description = "With partition: the table's slot count, checked against the schema (fixed when V3 is applied: leasebox schema --slots N).")
    Integer slots;

    @Option(names = "--ordered",
            description = "With partition: emit each partition key's entries one at a time, in enqueue (id) order.")
    boolean ordered;

    @Option(names = "--partition-claims", paramLabel = "lean|recorded", defaultValue = "lean",
            description = {"With partition: lean (default) writes nothing before emitting, the slot lease being the claim:",
                    "one write per batch; rows in flight carry no claim columns. recorded writes each batch's claims on the",
                    "rows first, as row leases do, for operators who want to see every claim (see docs/partitions.md)."})
    String partitionClaims;

    @Option(names = "--when-attempts-exhausted", paramLabel = "dead-letter|keep-retrying", defaultValue = "dead-letter",
            description = "What an entry that failed --max-attempts times becomes: dead-lettered (its key moves on, default) "
                    + "or retried forever, the backoff at its cap (with --ordered its key waits).")
    String whenAttemptsExhausted;

    /**
     * The options as {@code leasebox worker --lease-granularity G [--ordered] --partition-claims C} would have
     * them ({@code --slots} unchecked, {@code --when-attempts-exhausted dead-letter}); call {@link #validate}.
     */
    public static GranularityOptions of(String granularity, boolean ordered, String partitionClaims) {
        GranularityOptions o = new GranularityOptions();
        o.granularity = granularity;
        o.ordered = ordered;
        o.partitionClaims = partitionClaims;
        o.whenAttemptsExhausted = "dead-letter";
        return o;
    }

    public boolean isPartition() {
        return "partition".equals(granularity);
    }

    /** Checks the combination before anything is opened; an IllegalArgumentException says what to change. */
    public void validate() {
        if (!"row".equals(granularity) && !"partition".equals(granularity)) {
            throw new IllegalArgumentException("unknown --lease-granularity '" + granularity + "': use row or partition");
        }
        if (!isPartition() && (ordered || slots != null || !"lean".equals(partitionClaims))) {
            throw new IllegalArgumentException((ordered ? "--ordered" : slots != null ? "--slots" : "--partition-claims")
                    + " needs --lease-granularity partition: per-key order and slots are properties of partition leases");
        }
        attemptsExhausted();
        claimMode();
    }

    public PartitionClaims claimMode() {
        return switch (partitionClaims.toLowerCase(Locale.ROOT)) {
            case "recorded" -> PartitionClaims.RECORDED;
            case "lean" -> PartitionClaims.LEAN;
            default -> throw new IllegalArgumentException("unknown --partition-claims '" + partitionClaims
                    + "': use recorded or lean");
        };
    }

    public DrainOptions.AttemptsExhausted attemptsExhausted() {
        return switch (whenAttemptsExhausted.toLowerCase(Locale.ROOT)) {
            case "dead-letter" -> DrainOptions.AttemptsExhausted.DEAD_LETTER;
            case "keep-retrying" -> DrainOptions.AttemptsExhausted.KEEP_RETRYING;
            default -> throw new IllegalArgumentException("unknown --when-attempts-exhausted '" + whenAttemptsExhausted
                    + "': use dead-letter or keep-retrying");
        };
    }

    /**
     * The partition-lease claim store: slots leased through {@code external} (or, for the
     * {@code database} backend, through leases in the table's {@code _leases} table), membership in
     * the table's {@code _workers} table. The returned store must be closed after the drain.
     */
    PartitionedOutboxClaimStore openPartitioned(DataSource dataSource, JdbcOutboxStore jdbc,
                                                Optional<? extends LeaseManager> external, MeterRegistry registry,
                                                String owner, Duration leaseTtl, Clock clock, List<AutoCloseable> resources) {
        JdbcSlotStore slotStore = JdbcSlotStore.open(dataSource, jdbc, clock);
        if (slots != null && slots != slotStore.slotCount()) {
            throw new IllegalArgumentException("--slots " + slots + " does not match " + jdbc.table() + ", which has "
                    + slotStore.slotCount() + " slots (fixed when V3 was applied); drop --slots or give "
                    + slotStore.slotCount());
        }
        LeaseManager manager;
        if (external.isPresent()) {
            manager = external.get();
        } else {
            MeteredLeaseManager inTable = new MeteredLeaseManager(
                    JdbcLeaseManager.builder(dataSource).table(jdbc.table()).localClock(clock).open(), registry);
            resources.add(inTable);
            manager = inTable;
        }
        PartitionedOutboxClaimStore store = PartitionedOutboxClaimStore.open(jdbc, slotStore, manager,
                new JdbcWorkerGroup(dataSource, jdbc, clock), owner, leaseTtl,
                PartitionedOutboxClaimStore.defaultTickInterval(leaseTtl), ordered, claimMode(), clock);
        resources.add(store);
        return store;
    }

    /**
     * The claim store for the chosen granularity: {@code jdbc} itself ({@code database} backend, row leases),
     * {@code jdbc} layered with row leases of {@code external}, or a {@link PartitionedOutboxClaimStore}
     * (slots leased through {@code external} or, without one, in the table's {@code _leases}). What must be
     * closed after the drain is added to {@code resources}, in opening order.
     */
    public OutboxClaimStore claimStore(DataSource dataSource, JdbcOutboxStore jdbc, Optional<? extends LeaseManager> external,
                                MeterRegistry registry, String owner, Duration leaseTtl, Clock clock,
                                List<AutoCloseable> resources) {
        if (isPartition()) {
            return openPartitioned(dataSource, jdbc, external, registry, owner, leaseTtl, clock, resources);
        }
        return BackendOptions.claimStore(jdbc, external, clock);
    }

    public String describe() {
        return isPartition() ? "partition leases, " + claimMode().name().toLowerCase(Locale.ROOT) + " claims"
                + (ordered ? ", ordered per key" : "") : "row leases";
    }
}
