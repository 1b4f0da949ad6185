package dev.leasebox.chaos.harness;

import dev.leasebox.cli.GranularityOptions;
import dev.leasebox.outbox.partition.PartitionClaims;

import java.util.ArrayList;
import java.util.List;

/**
 * What a run's workers lease, as {@code leasebox worker}'s options say it: {@code --lease-granularity
 * row|partition}, {@code --ordered}, {@code --partition-claims lean|recorded}. Passed to every chaos
 * worker unchanged; the worker builds its claim store with {@code leasebox worker}'s own code
 * ({@link GranularityOptions}).
 *
 * @param leaseGranularity {@code row} or {@code partition}
 * @param ordered          per-key ordering (partition only)
 * @param partitionClaims  {@code lean} or {@code recorded} (partition only; {@code lean} otherwise)
 */
public record Granularity(String leaseGranularity, boolean ordered, String partitionClaims) {

    /** Row leases: the default, and what every scenario ran with before partition leases. */
    public static final Granularity ROW = new Granularity("row", false, "lean");

    /** Partition keys the workload spreads entries over with row leases (as it always did). */
    static final int ROW_AGGREGATES = 16;

    /**
     * Partition keys with partition leases: enough that each worker's slots hold several keys and a batch
     * several entries, few enough that every key has dozens of entries whose order can be checked.
     */
    static final int PARTITION_AGGREGATES = 32;

    public static Granularity partition(boolean ordered, String partitionClaims) {
        return new Granularity("partition", ordered, partitionClaims);
    }

    /** Checks the combination with {@code leasebox worker}'s rules; an IllegalArgumentException says what to change. */
    public Granularity validated() {
        options().validate();
        return this;
    }

    private GranularityOptions options() {
        return GranularityOptions.of(leaseGranularity, ordered, partitionClaims);
    }

    public boolean isPartition() {
        return "partition".equals(leaseGranularity);
    }

    /** Partition leases with lean claims: rows are read, emitted and completed under the slot grant's fence. */
    public boolean isLeanPartition() {
        return isPartition() && options().claimMode() == PartitionClaims.LEAN;
    }

    /** How many partition keys the workload uses. */
    public int aggregates() {
        return isPartition() ? PARTITION_AGGREGATES : ROW_AGGREGATES;
    }

    /** The worker's options, as {@code leasebox worker} takes them. */
    public List<String> workerArgs() {
        List<String> args = new ArrayList<>(List.of("--lease-granularity", leaseGranularity));
        if (isPartition()) {
            args.add("--partition-claims");
            args.add(partitionClaims);
        }
        if (ordered) {
            args.add("--ordered");
        }
        return args;
    }

    /** E.g. {@code row leases} or {@code partition leases, lean claims, ordered per key}. */
    public String describe() {
        return options().describe();
    }
}
