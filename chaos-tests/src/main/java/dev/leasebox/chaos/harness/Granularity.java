package dev.leasebox.chaos.harness;

import dev.leasebox.LeaseboxSettings;
import dev.leasebox.claim.ClaimMode;
import dev.leasebox.claim.LeaseGrouping;
import dev.leasebox.claim.ReleaseAfterCompletion;

import java.util.ArrayList;
import java.util.List;

/**
 * What a run's workers lease, in the keys of {@link LeaseboxSettings}: {@code --granularity row|partition},
 * {@code --ordered}, {@code --claim-mode lean|recorded}, the release keys. Passed to every chaos worker as
 * those flags; the worker reads them into the settings, as {@code leasebox worker} does, and the settings check
 * the combination ({@link #validated()}).
 *
 * @param leaseGranularity {@code row} or {@code partition}
 * @param ordered          per-key ordering (partition only)
 * @param partitionClaims  the claim mode of partition leases, {@code lean} or {@code recorded} (partition only;
 *                         {@code lean} otherwise)
 * @param rowClaims        the claim mode of row leases through an external backend, {@code recorded} or {@code lean}
 *                         (row leases only; {@code recorded} otherwise)
 * @param releaseAfterCompletion {@code always} or {@code non-terminal}: {@code leasebox worker
 *                         --release-after-completion} (row leases through an external backend; {@code non-terminal}
 *                         on Redis only, which the library refuses elsewhere)
 * @param releaseInBackground {@code leasebox worker --release-in-background} (row leases through an external backend)
 * @param rowGrouping      how row leases are keyed through an external backend: {@code ""} (the backend's default:
 *                         grouped on ZooKeeper and Hazelcast, a lease per row on Redis), {@value #PER_ROW} (a lease per
 *                         row, {@code --backend-option row-groups=0}) or {@value #GROUPED} (rows grouped as the
 *                         library groups them by default, {@code row-groups} set explicitly)
 */
public record Granularity(String leaseGranularity, boolean ordered, String partitionClaims, String rowClaims,
                          String releaseAfterCompletion, boolean releaseInBackground, String rowGrouping) {

    /** {@link #rowGrouping}: a lease per row. */
    public static final String PER_ROW = "per-row";
    /** {@link #rowGrouping}: rows grouped under shared leases. */
    public static final String GROUPED = "grouped";

    /** Row leases with recorded claims: the default, and what every scenario ran with before partition leases. */
    public static final Granularity ROW = new Granularity("row", false, "lean", "recorded");

    /** Row leases with lean claims ({@code --claim-mode lean}): nothing written before emitting. */
    public static final Granularity LEAN_ROWS = new Granularity("row", false, "lean", "lean");

    /** Partition claims as given, row claims left at their default. */
    public Granularity(String leaseGranularity, boolean ordered, String partitionClaims) {
        this(leaseGranularity, ordered, partitionClaims, "recorded");
    }

    /** Leases released after every completion, by the claim loop (the defaults). */
    public Granularity(String leaseGranularity, boolean ordered, String partitionClaims, String rowClaims) {
        this(leaseGranularity, ordered, partitionClaims, rowClaims, "always", false);
    }

    /** Row leases keyed as the backend does by default. */
    public Granularity(String leaseGranularity, boolean ordered, String partitionClaims, String rowClaims,
                       String releaseAfterCompletion, boolean releaseInBackground) {
        this(leaseGranularity, ordered, partitionClaims, rowClaims, releaseAfterCompletion, releaseInBackground, "");
    }

    public Granularity {
        if (!rowGrouping.isEmpty() && !PER_ROW.equals(rowGrouping) && !GROUPED.equals(rowGrouping)) {
            throw new IllegalArgumentException("--row-grouping: choose " + PER_ROW + " or " + GROUPED + ", was '" + rowGrouping + "'");
        }
    }

    /** The same, releasing leases as {@code --release-after-completion} and {@code --release-in-background} say. */
    public Granularity withRelease(String afterCompletion, boolean inBackground) {
        return new Granularity(leaseGranularity, ordered, partitionClaims, rowClaims, afterCompletion, inBackground,
                rowGrouping);
    }

    /** The same, row leases keyed {@value #PER_ROW} or {@value #GROUPED} whatever the backend's default. */
    public Granularity withRowGrouping(String grouping) {
        return new Granularity(leaseGranularity, ordered, partitionClaims, rowClaims, releaseAfterCompletion,
                releaseInBackground, grouping);
    }

    /**
     * The backend options that key row leases as {@link #rowGrouping} says, for workers on an external backend
     * ({@link LeaseGrouping}'s options); none for partition leases or the backend's default.
     */
    public java.util.Map<String, String> groupingOptions() {
        if (isPartition() || rowGrouping.isEmpty()) {
            return java.util.Map.of();
        }
        return java.util.Map.of(LeaseGrouping.GROUPS_OPTION,
                PER_ROW.equals(rowGrouping) ? "0" : Integer.toString(LeaseGrouping.DEFAULT_GROUPS));
    }

    /** Whether leases are released as by default: after every completion, by the claim loop. */
    public boolean releasesAsDefault() {
        return ReleaseAfterCompletion.parse(releaseAfterCompletion) == ReleaseAfterCompletion.ALWAYS && !releaseInBackground;
    }

    /** {@code --release-after-completion non-terminal}: terminal completions' leases lapse at their ttl (Redis only). */
    public boolean releasesNonTerminalOnly() {
        return ReleaseAfterCompletion.parse(releaseAfterCompletion) == ReleaseAfterCompletion.NON_TERMINAL;
    }

    /**
     * Checks the release options against {@code backend} as the library would refuse them, in one line naming the
     * flags; empty when they apply.
     */
    public String releaseRefusedOn(String backend) {
        if (releasesAsDefault()) {
            return "";
        }
        if ("database".equals(backend)) {
            return "--release-after-completion and --release-in-background apply to external lease backends only: "
                    + "the database backend claims in the row itself";
        }
        if (releasesNonTerminalOnly() && !"redis".equals(backend)) {
            return "--release-after-completion non-terminal needs --backend redis: " + backend
                    + " keeps an unreleased lease past its ttl";
        }
        return "";
    }

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

    /**
     * Checks the combination with the settings' rules ({@link LeaseboxSettings}); an IllegalArgumentException says
     * what to change, naming the flags.
     */
    public Granularity validated() {
        settings().build();
        if (isPartition() && ClaimMode.parse(rowClaims) == ClaimMode.LEAN) {
            throw new IllegalArgumentException("--claim-mode lean of row leases and --granularity partition: the claim "
                    + "mode of partition leases is the run's --claim-mode");
        }
        return this;
    }

    /** The settings these worker flags make (no backend: the run's coordinator adds it). */
    private LeaseboxSettings.Builder settings() {
        LeaseboxSettings.Builder settings = LeaseboxSettings.builder(LeaseboxSettings.Spelling.FLAGS);
        List<String> args = workerArgs();
        for (int i = 0; i < args.size(); i += 2) {
            settings.set(args.get(i).substring(2), args.get(i + 1));
        }
        return settings;
    }

    /** Row leases with lean claims ({@code --claim-mode lean}). */
    public boolean isLeanRows() {
        return !isPartition() && ClaimMode.parse(rowClaims) == ClaimMode.LEAN;
    }

    /** Lean claims of either granularity: the checker holds the run to lean's guarantee. */
    public boolean isLean() {
        return isLeanRows() || isLeanPartition();
    }

    public boolean isPartition() {
        return "partition".equals(leaseGranularity);
    }

    /** Partition leases with lean claims: rows are read, emitted and completed under the slot grant's fence. */
    public boolean isLeanPartition() {
        return isPartition() && ClaimMode.parse(partitionClaims) == ClaimMode.LEAN;
    }

    /** How many partition keys the workload uses. */
    public int aggregates() {
        return isPartition() ? PARTITION_AGGREGATES : ROW_AGGREGATES;
    }

    /** The worker's flags, {@code --KEY VALUE} pairs of the settings' keys, as {@code leasebox worker} takes them. */
    public List<String> workerArgs() {
        List<String> args = new ArrayList<>(List.of("--granularity", leaseGranularity));
        if (isPartition()) {
            args.addAll(List.of("--claim-mode", partitionClaims));
        }
        if (ordered) {
            args.addAll(List.of("--ordered", "true"));
        }
        if (!isPartition() && !"recorded".equalsIgnoreCase(rowClaims)) {
            args.addAll(List.of("--claim-mode", rowClaims));
        }
        if (!"always".equalsIgnoreCase(releaseAfterCompletion)) {
            args.addAll(List.of("--release-after-completion", releaseAfterCompletion));
        }
        if (releaseInBackground) {
            args.addAll(List.of("--release-in-background", "true"));
        }
        return args;
    }

    /** E.g. {@code row leases} or {@code partition leases, lean claims, ordered per key}. */
    public String describe() {
        return settings().build().describe()
                + (isPartition() || rowGrouping.isEmpty() ? "" : PER_ROW.equals(rowGrouping) ? ", a lease per row" : ", rows grouped")
                + (releasesNonTerminalOnly() ? ", terminal leases left to lapse" : "")
                + (releaseInBackground ? ", released in the background" : "");
    }

    /**
     * The row keying and release variant as report directories and summaries name it: {@code -per-row} or
     * {@code -grouped} when the row keying is set, then {@code -non-terminal}, {@code -release-in-background}, both, or
     * nothing with the default release.
     */
    public String releaseSuffix() {
        return (isPartition() || rowGrouping.isEmpty() ? "" : "-" + rowGrouping) + (releasesNonTerminalOnly() ? "-non-terminal" : "") + (releaseInBackground ? "-release-in-background" : "");
    }
}
