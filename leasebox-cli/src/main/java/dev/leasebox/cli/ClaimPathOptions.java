package dev.leasebox.cli;

import dev.leasebox.claim.ClaimMode;
import dev.leasebox.claim.ReleaseAfterCompletion;
import picocli.CommandLine.Option;

/**
 * How a worker on an external lease backend turns leases into claims ({@code --claim-mode}), which
 * leases it releases after completing ({@code --release-after-completion}) and from which thread
 * ({@code --release-in-background}). The {@code database} backend claims in the row itself and takes
 * none of these options.
 */
final class ClaimPathOptions {

    @Option(names = "--claim-mode", paramLabel = "recorded|lean", defaultValue = "recorded",
            description = {"External backends: recorded (default) writes each claim to its row before emitting and checks",
                    "completions against it; lean writes no claim and checks the lease's fence in the completion",
                    "(fewer writes; a stale holder is refused only once a newer one has completed, and rows in flight",
                    "show no claim). See docs/performance.md."})
    String claimMode;

    @Option(names = "--release-after-completion", paramLabel = "always|non-terminal", defaultValue = "always",
            description = {"External backends: release every lease after its completion (default), or let the leases of",
                    "DELIVERED and DEAD_LETTERED rows lapse at the ttl (non-terminal: one coordinator round trip less per",
                    "batch; redis only)."})
    String releaseAfterCompletion;

    @Option(names = "--release-in-background",
            description = {"External backends: release a completed batch's leases from a thread of the worker's own",
                    "instead of the claim loop, which goes on to its next claim without waiting for that round trip",
                    "(the keys come free a moment later). Off by default."})
    boolean releaseInBackground;

    @Option(names = "--candidate-over-ask", paramLabel = "K", defaultValue = "2",
            description = {"External backends: ask leases for K times the batch's rows and take at most a batch (default",
                    "${DEFAULT-VALUE}): rows other workers hold are skipped in the same round trip and batches come back full;",
                    "1 asks for exactly a batch. A backend that grants rows a block at a time (Hazelcast) is asked for at",
                    "least the batch plus a block, so that one block another worker holds cannot leave a claim short."})
    int candidateOverAsk;

    ClaimMode claimMode() {
        return ClaimMode.parse(claimMode);
    }

    ReleaseAfterCompletion releaseAfterCompletion() {
        return ReleaseAfterCompletion.parse(releaseAfterCompletion);
    }

    /** Fails with one line when a value is unknown, or when the database backend is given either option. */
    void validate(boolean databaseBackend) {
        if (candidateOverAsk < 1 || candidateOverAsk > 10) {
            throw new IllegalArgumentException("--candidate-over-ask must be in 1..10, was " + candidateOverAsk);
        }
        ClaimMode mode = claimMode();
        ReleaseAfterCompletion release = releaseAfterCompletion();
        if (databaseBackend && (mode != ClaimMode.RECORDED || release != ReleaseAfterCompletion.ALWAYS || releaseInBackground)) {
            throw new IllegalArgumentException("--claim-mode, --release-after-completion and --release-in-background apply "
                    + "to external lease backends only: the database backend claims in the row itself. Drop them, or "
                    + "choose --backend redis, zookeeper or hazelcast.");
        }
    }

    /** Whether the options are at their defaults (recorded claims, release always, by the claim loop). */
    boolean isDefault() {
        return claimMode() == ClaimMode.RECORDED && releaseAfterCompletion() == ReleaseAfterCompletion.ALWAYS
                && !releaseInBackground;
    }

    boolean releaseInBackground() {
        return releaseInBackground;
    }

    int candidateOverAsk() {
        return candidateOverAsk;
    }

    /** For the worker's start-up line. */
    String describe() {
        return "claim mode " + claimMode().name().toLowerCase(java.util.Locale.ROOT) + ", release after completion "
                + releaseAfterCompletion().name().toLowerCase(java.util.Locale.ROOT).replace('_', '-')
                + (releaseInBackground ? " in the background" : "");
    }
}
