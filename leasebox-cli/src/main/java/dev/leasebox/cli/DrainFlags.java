package dev.leasebox.cli;

import dev.leasebox.LeaseboxSettings;
import dev.leasebox.provider.ProviderSpec;
import picocli.CommandLine.Option;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The worker's drain flags, bound as text: {@code --KEY VALUE} for each key of {@link LeaseboxSettings}, which
 * reads and checks them all. Defaults are shown in the help as the settings have them.
 */
final class DrainFlags {

    @Option(names = "--backend", defaultValue = LeaseboxSettings.DATABASE, paramLabel = "database|zookeeper|redis|hazelcast",
            description = "Where leases live: the database itself (the default), or an external coordinator.")
    String backend;

    @Option(names = "--zookeeper", paramLabel = "CONNECT", description = "ZooKeeper connect string, e.g. 127.0.0.1:2181.")
    String zookeeper;

    @Option(names = "--redis", paramLabel = "URI", description = "Redis URI, e.g. redis://user:pass@127.0.0.1:6379 or rediss://…")
    String redis;

    @Option(names = "--hazelcast", paramLabel = "ADDRESSES", description = "Hazelcast members, e.g. 127.0.0.1:5701,127.0.0.1:5702.")
    String hazelcast;

    @Option(names = "--namespace", paramLabel = "NS", description = "Separates deployments sharing one coordinator (default: leasebox).")
    String namespace;

    @Option(names = "--backend-option", paramLabel = "NAME=VALUE",
            description = "A backend-specific setting (repeatable, kebab-case), e.g. session-timeout=10s; row-groups=N, row-group-block=N "
                    + "and row-group-linger=500ms group rows under shared leases on any backend (on by default for hazelcast and "
                    + "zookeeper; row-groups=0 turns it off).")
    Map<String, String> backendOptions = new LinkedHashMap<>();

    @Option(names = "--owner", paramLabel = "NAME", description = "This worker's name in claims (default: host-pid-random).")
    String owner;

    @Option(names = "--provider", paramLabel = "SPEC", defaultValue = "log", description = "Where entries go: " + ProviderSpec.FORMATS + " (default: ${DEFAULT-VALUE}).")
    String provider;

    @Option(names = "--lease-ttl", paramLabel = "DURATION",
            description = "Lease duration, at least 1s, e.g. 30s or 1m30s; renewed every third of it while emitting (default: 30s).")
    String leaseTtl;

    @Option(names = "--batch", paramLabel = "N", description = "Rows claimed per batch (default: 100).")
    String batch;

    @Option(names = "--concurrency", paramLabel = "N", description = "Claim loops (threads) in this worker (default: 1).")
    String concurrency;

    @Option(names = "--max-attempts", paramLabel = "N", description = "Attempts before dead-lettering (default: 10).")
    String maxAttempts;

    @Option(names = "--when-attempts-exhausted", paramLabel = "dead-letter|keep-retrying",
            description = "What an entry that failed --max-attempts times becomes: dead-lettered (its key moves on, default) "
                    + "or retried forever, the backoff at its cap (with --ordered its key waits).")
    String whenAttemptsExhausted;

    @Option(names = "--backoff-initial", paramLabel = "DURATION",
            description = "Retry backoff: the delay ceiling after the first failed attempt (default: 1s).")
    String backoffInitial;

    @Option(names = "--backoff-multiplier", paramLabel = "X",
            description = "Retry backoff: how much the ceiling grows per failed attempt, 1 to 100 (default: 2).")
    String backoffMultiplier;

    @Option(names = "--backoff-max", paramLabel = "DURATION", description = "Retry backoff: the largest ceiling (default: 5m).")
    String backoffMax;

    @Option(names = "--backoff-jitter", paramLabel = "FRACTION",
            description = "Retry backoff: each delay is drawn from [ceiling * (1 - FRACTION), ceiling]; 1.0 spreads retries "
                    + "from 0 to the ceiling, 0 waits exactly the ceiling (default: 1.0).")
    String backoffJitter;

    @Option(names = "--granularity", paramLabel = "row|partition",
            description = {"row: lease each claimed row through the backend (default).",
                    "partition: lease the table's slots (V3) and claim their rows in the database; the backend leaves the per-row path."})
    String granularity;

    @Option(names = "--slots", paramLabel = "N",
            description = "With partition: the table's slot count, checked against the schema (fixed when V3 is applied: leasebox schema --slots N).")
    String slots;

    @Option(names = "--ordered", arity = "0..1", fallbackValue = "true", paramLabel = "BOOLEAN", description = "With partition: emit each partition key's entries one at a time, in enqueue (id) order.")
    boolean ordered;

    @Option(names = "--claim-mode", paramLabel = "recorded|lean",
            description = {"recorded writes each claim to its row before emitting and checks completions against it; lean",
                    "writes no claim and checks the lease's fence in the completion (fewer writes; a stale holder is refused",
                    "only once a newer one has completed, and rows in flight show no claim). Default: recorded for row",
                    "leases, lean for partition leases. Lean row claims need an external backend. See docs/performance.md."})
    String claimMode;

    @Option(names = "--release-after-completion", paramLabel = "always|non-terminal",
            description = {"External backends: release every lease after its completion (default), or let the leases of",
                    "DELIVERED and DEAD_LETTERED rows lapse at the ttl (non-terminal: one coordinator round trip less per",
                    "batch; redis only)."})
    String releaseAfterCompletion;

    @Option(names = "--release-in-background", arity = "0..1", fallbackValue = "true", paramLabel = "BOOLEAN",
            description = {"External backends: release a completed batch's leases from a thread of the worker's own",
                    "instead of the claim loop, which goes on to its next claim without waiting for that round trip",
                    "(the keys come free a moment later). Off by default."})
    boolean releaseInBackground;

    @Option(names = "--candidate-over-ask", paramLabel = "K",
            description = {"External backends: ask leases for K times the batch's rows and take at most a batch (default",
                    "2): rows other workers hold are skipped in the same round trip and batches come back full;",
                    "1 asks for exactly a batch. A backend that grants rows a block at a time (Hazelcast) is asked for at",
                    "least the batch plus a block, so that one block another worker holds cannot leave a claim short."})
    String candidateOverAsk;

    @Option(names = "--candidate-spread", paramLabel = "N",
            description = "With an external backend, pick each batch at random among the oldest N batches' worth of rows, "
                    + "so workers racing for leases mostly ask for different rows (1..100, default: 4).")
    String candidateSpread;

    @Option(names = "--wake-ups", paramLabel = "BOOLEAN", arity = "0..1", fallbackValue = "true",
            description = "Look as soon as entries are committed (PostgreSQL notifications on one held connection, "
                    + "writers through the coordinator) instead of only polling; false: poll only (default: true).")
    String wakeUps;

    /** The flags read into the settings, with {@code table} from the database options. */
    LeaseboxSettings settings(String table) {
        LeaseboxSettings.Builder s = LeaseboxSettings.builder(LeaseboxSettings.Spelling.FLAGS)
                .set("table", table).set("backend", backend).set("zookeeper", zookeeper).set("redis", redis)
                .set("hazelcast", hazelcast).set("namespace", namespace).set("owner", owner).set("provider", provider)
                .set("lease-ttl", leaseTtl).set("batch", batch).set("concurrency", concurrency)
                .set("max-attempts", maxAttempts).set("when-attempts-exhausted", whenAttemptsExhausted)
                .set("backoff-initial", backoffInitial).set("backoff-multiplier", backoffMultiplier)
                .set("backoff-max", backoffMax).set("backoff-jitter", backoffJitter).set("granularity", granularity)
                .set("slots", slots).set("ordered", String.valueOf(ordered)).set("claim-mode", claimMode)
                .set("release-after-completion", releaseAfterCompletion)
                .set("release-in-background", String.valueOf(releaseInBackground))
                .set("candidate-over-ask", candidateOverAsk).set("candidate-spread", candidateSpread).set("wake-ups", wakeUps);
        backendOptions.forEach(s::backendOption);
        return s.build();
    }
}
