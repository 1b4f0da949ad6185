package dev.leasebox.cli;

import dev.leasebox.Leasebox;
import dev.leasebox.claim.ClaimMode;
import dev.leasebox.claim.Granularity;
import dev.leasebox.drain.DrainOptions;
import picocli.CommandLine.Option;

import java.util.Locale;

/**
 * What a worker leases: rows (the default) or slots of the table (partition leases), and per-key ordering.
 * The options configure the drain through {@link #configure(Leasebox.Builder)}, the library's
 * entry point, as an embedding service would.
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
                    "rows first, as row leases do, for operators who want to see every claim (see docs/guide/partition-leases.md)."})
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

    public ClaimMode claimMode() {
        return switch (partitionClaims.toLowerCase(Locale.ROOT)) {
            case "recorded" -> ClaimMode.RECORDED;
            case "lean" -> ClaimMode.LEAN;
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

    /** Sets the granularity, ordering, expected slots and (for partitions) the claim mode on a drain being built. */
    public void configure(Leasebox.Builder builder) {
        if (!isPartition()) {
            return;
        }
        builder.granularity(Granularity.PARTITION).ordered(ordered)
                .claimMode(claimMode());
        if (slots != null) {
            builder.expectSlots(slots);
        }
    }

    public String describe() {
        return isPartition() ? "partition leases, " + claimMode().name().toLowerCase(Locale.ROOT) + " claims"
                + (ordered ? ", ordered per key" : "") : "row leases";
    }
}
