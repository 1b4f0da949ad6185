package dev.leasebox.bench;

import dev.leasebox.claim.ClaimMode;
import dev.leasebox.claim.ReleaseAfterCompletion;
import dev.leasebox.jdbc.DatabaseKind;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;

/**
 * {@code leasebox bench}: drains fresh PostgreSQL or MariaDB outbox tables with each backend in turn, in one run,
 * and reports rows finalized per second, claim latency percentiles and the ratios to the
 * {@code database} backend (FOR UPDATE SKIP LOCKED) and to the {@code baseline} pseudo-backend (two bare
 * statements on a minimal table, {@link BaselineCell}) measured at the same workers, batch and mode in
 * the same round of the run. Two modes: steady state with a feeder topping the backlog up (the default),
 * and {@code --backlog N}, a pre-seeded backlog drained to the end with nothing inserted meanwhile.
 * Every table is VACUUM ANALYZEd (MariaDB: ANALYZE TABLE) before its window; the baseline, --fillfactor,
 * relaxed claim records and --failover are PostgreSQL's only. {@code --latency} adds latency cells
 * ({@link LatencyBench}); every cell reports CPU per 10,000 rows ({@link CpuSources}). Exit code 1 when an entry was finalized twice or
 * the table disagrees with the completions.
 */
@Command(name = "bench", mixinStandardHelpOptions = true,
        header = "Benchmark the backends against each other on one PostgreSQL or MariaDB outbox.",
        description = {"Benchmark the backends against each other on one PostgreSQL or MariaDB outbox, in one run: rows finalized",
                "per second, claim latency percentiles, and the ratios to the database backend (FOR UPDATE SKIP LOCKED)",
                "and to the baseline pseudo-backend (two bare SQL statements on a minimal table; add it to --backends).",
                "Every table is VACUUM ANALYZEd (MariaDB: ANALYZE TABLE) before its window. The baseline, --fillfactor,",
                "--claim-records relaxed and --failover need PostgreSQL. Modes: a feeder keeps the backlog topped up (default),",
                "or --backlog N drains N pre-seeded rows to the end; --rounds R repeats every cell R times, interleaved.",
                "Coordinators not given by address are started here (ZooKeeper in-process, Hazelcast three CP members",
                "in-process, Redis a redis-server child process) and share this machine's CPUs with the workers.",
                "With --failover: the time from SIGKILL of a lease holder (a separate worker JVM) to another worker",
                "emitting its entries, per backend. With --latency: commit to emission and commit to finalized (p50, p99,",
                "p99.9, max) under open-loop Poisson arrivals, idle and at half the measured rows/s, per backend.",
                "Every cell reports CPU seconds per 10,000 rows of the database server's processes, this JVM (with any",
                "in-process coordinator) and the coordinator's own server process, read from /proc (Linux; else n/a)."})
public final class BenchCommand implements Callable<Integer> {

    static final String DEFAULT_JDBC_URL = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";

    @Spec
    CommandSpec spec;

    @Option(names = "--backends", split = ",", paramLabel = "NAME", defaultValue = "database,redis,zookeeper,hazelcast",
            description = "Backends to measure, in this order (default: ${DEFAULT-VALUE}); 'baseline' is the bare-SQL "
                    + "pseudo-backend, a measurement of what the database does alone.")
    List<String> backends;

    @Option(names = "--backlog", paramLabel = "N", defaultValue = "0",
            description = "Also measure draining a backlog: N rows pre-seeded, no feeder, the window lasting until every "
                    + "one is finalized (default 0: steady-state feeder mode only).")
    long backlog;

    @Option(names = "--modes", split = ",", paramLabel = "feeder|backlog",
            description = "The modes to measure (default: feeder, and backlog too when --backlog is given).")
    List<String> modes;

    @Option(names = "--rounds", paramLabel = "R", defaultValue = "1",
            description = "Measure every cell R times, the backends interleaved (round r starts at the r-th backend); "
                    + "the table shows medians (default: ${DEFAULT-VALUE}).")
    int rounds;

    @Option(names = "--fillfactor", paramLabel = "PERCENT", defaultValue = "0",
            description = "Set the outbox tables' fillfactor after their migrations (default 0: as V5 sets it, 50), to "
                    + "measure what that setting buys; the baseline's table keeps PostgreSQL's default.")
    int fillfactor;

    @Option(names = "--warm-jvm", description = "Before the first round, run every backend's cell once in feeder mode "
            + "with --warmup as its window and report nothing of it, so that no backend's first measured cell runs on a "
            + "cold JVM (the run's first cell otherwise pays for class loading and compilation).")
    boolean warmJvm;

    @Option(names = "--payload", paramLabel = "BYTES", defaultValue = "" + BenchDatabase.DEFAULT_PAYLOAD_BYTES,
            description = "Payload of every row, in bytes (default: ${DEFAULT-VALUE}).")
    int payload;

    @Option(names = "--workers", paramLabel = "W", defaultValue = "4", description = "Drains, each its own pool and lease client (default: ${DEFAULT-VALUE}).")
    int workers;

    @Option(names = "--batch", paramLabel = "B", defaultValue = "100", description = "Rows claimed per batch (default: ${DEFAULT-VALUE}).")
    int batch;

    @Option(names = "--seconds", paramLabel = "DURATION", defaultValue = "10s", converter = WholeSeconds.class,
            description = "Length of each measured window, whole seconds (default: ${DEFAULT-VALUE}).")
    int seconds;

    @Option(names = "--warmup", paramLabel = "DURATION", defaultValue = "3s", converter = WholeSeconds.class,
            description = "Warm-up before each window, not measured, whole seconds (default: ${DEFAULT-VALUE}).")
    int warmup;

    @Option(names = "--matrix", description = "Measure W in {1,4,8} x B in {1,10,100} (ignores --workers and --batch) and draw a chart.")
    boolean matrix;

    @Option(names = "--csv", paramLabel = "FILE", defaultValue = "leasebox-bench.csv", description = "Where to write the CSV (default: ${DEFAULT-VALUE}).")
    Path csv;

    @Option(names = "--chart", paramLabel = "FILE", description = "Where to write the HTML chart (default: the CSV's name with .html).")
    Path chart;

    @Option(names = "--jdbc-url", paramLabel = "URL", defaultValue = DEFAULT_JDBC_URL,
            description = "The PostgreSQL or MariaDB database; the bench works in a fresh schema (MariaDB: database) it drops "
                    + "afterwards (default: ${DEFAULT-VALUE}).")
    String jdbcUrl;

    @Option(names = "--redis", paramLabel = "URI", description = "Use this Redis instead of starting a redis-server.")
    String redis;

    @Option(names = "--zookeeper", paramLabel = "CONNECT", description = "Use this ZooKeeper instead of an in-process server.")
    String zookeeper;

    @Option(names = "--hazelcast", paramLabel = "ADDRESSES", description = "Use these Hazelcast CP members instead of three in-process ones.")
    String hazelcast;

    @Option(names = "--lease-ttl", paramLabel = "DURATION", defaultValue = "9s", converter = WholeSeconds.class,
            description = "Lease duration for every backend (default: ${DEFAULT-VALUE}; the embedded Hazelcast members' CP session "
                    + "of 10 s with a 1 s heartbeat allows at most 9).")
    int leaseTtlSeconds;

    @Option(names = "--candidate-spread", paramLabel = "N", defaultValue = "0",
            description = "Candidate spread of the external backends' workers (default 0: workers + 1).")
    int candidateSpread;

    @Option(names = "--candidate-over-ask", paramLabel = "K", defaultValue = "2",
            description = "External backends' row claims ask leases for K times the batch and take at most a batch (default: ${DEFAULT-VALUE}; 1 = exactly a batch; at least batch + block where rows are granted a block at a time).")
    int candidateOverAsk;

    @Option(names = "--release", paramLabel = "sync|async|expire", defaultValue = "sync",
            description = "Release leases after completion from the claim loop (sync, the product default), from the claim "
                    + "store's own thread (async: leasebox worker --release-in-background), or not at all, letting them "
                    + "lapse at the ttl (expire: measured only). Default: ${DEFAULT-VALUE}.")
    String release;

    @Option(names = "--claim-records", paramLabel = "durable|relaxed", defaultValue = "durable",
            description = "Lever (a): external backends record claims durably (the default), or with "
                    + "synchronous_commit = off (relaxed; a lost record costs at most a duplicate emission). Default: ${DEFAULT-VALUE}.")
    String claimRecords;

    @Option(names = "--granularity", paramLabel = "row|partition", defaultValue = "row",
            description = "row: every backend with row leases (default). partition: the database backend with row leases "
                    + "(the baseline), then every backend in --backends with partition leases, reported as NAME/partition.")
    String leaseGranularity;

    @Option(names = "--claim-mode", paramLabel = "recorded|lean",
            description = "How the workers claim, as leasebox worker --claim-mode: recorded (a claim record on the row before "
                    + "emitting) or lean (no claim record; the fence is checked by the completion). Default: recorded for "
                    + "row leases, lean for partition leases.")
    String claimMode;

    @Option(names = "--release-after-completion", paramLabel = "always|non-terminal", defaultValue = "always",
            description = "Product option: release every lease after its completion (always), or let the leases of "
                    + "DELIVERED/DEAD_LETTERED rows lapse at the ttl (non-terminal; redis only). Default: ${DEFAULT-VALUE}.")
    String releaseAfterCompletion;

    @Option(names = "--history", paramLabel = "ROWS", defaultValue = "100000",
            description = "DELIVERED rows each fresh table starts with, older than its backlog, before it is analyzed: "
                    + "the history a long-lived outbox has, which its statistics reflect (default: ${DEFAULT-VALUE}).")
    long history;

    @Option(names = "--backend-option", paramLabel = "BACKEND.NAME=VALUE",
            description = "A backend's own setting for its workers (repeatable), as leasebox worker --backend-option NAME=VALUE, "
                    + "prefixed with the backend it is for, e.g. hazelcast.row-group-block=128 or zookeeper.session-timeout=10s.")
    Map<String, String> backendOptions = new LinkedHashMap<>();

    @Option(names = "--latency", description = "After the throughput cells, measure latency per backend and --wake-ups "
            + "setting: rows arriving open-loop (a Poisson process, inserted and committed one transaction at a time by a "
            + "writer of their own) at --idle-rate, then at --rate; commit to emission and commit to finalized at p50, "
            + "p99, p99.9 and max.")
    boolean latency;

    @Option(names = "--rate", paramLabel = "ROWS_PER_S|half", defaultValue = "half",
            description = "Arrival rate of the loaded latency cells: rows a second, or half (default) of the rows/s the "
                    + "backend's throughput cell at --workers and --batch measured in this run.")
    String rate;

    @Option(names = "--idle-rate", paramLabel = "ROWS_PER_S", defaultValue = "2",
            description = "Arrival rate of the idle latency cells, rows one at a time (default: ${DEFAULT-VALUE} a second).")
    double idleRate;

    @Option(names = "--latency-seconds", paramLabel = "DURATION", defaultValue = "20s", converter = WholeSeconds.class,
            description = "Measured window of each latency cell, after --warmup, whole seconds (default: ${DEFAULT-VALUE}).")
    int latencySeconds;

    @Option(names = "--wake-ups", split = ",", arity = "1", paramLabel = "true|false", defaultValue = "false",
            description = "Run the workers with wake-ups on, off, or both in turn for the latency cells (true,false); "
                    + "throughput cells use the first. Off: an idle worker polls, waiting 100 ms doubling to 5 s. "
                    + "Default: ${DEFAULT-VALUE}.")
    List<Boolean> wakeUps;

    @Option(names = "--failover", description = "Measure failover instead of throughput: SIGKILL a worker JVM holding leases, "
            + "time until another worker emits those entries.")
    boolean failover;

    @Option(names = "--failover-rounds", paramLabel = "N", defaultValue = "3", description = "Kills per backend with --failover (default: ${DEFAULT-VALUE}).")
    int failoverRounds;

    @Override
    public Integer call() throws Exception {
        validate();
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        Map<String, BenchCoordinator> coordinators = new LinkedHashMap<>();
        try (BenchDatabase database = BenchDatabase.open(jdbcUrl, payload).fillfactor(fillfactor)) {
            for (String backend : backends) {
                if (!local(backend)) {
                    err.println("starting the " + backend + " coordinator...");
                    err.flush();
                    coordinators.put(backend, BenchCoordinator.start(backend, addressOf(backend), failover
                            ? FailoverBench.embeddedOptions(backend, Duration.ofSeconds(leaseTtlSeconds)) : Map.of())
                            .withOptions(optionsFor(backend)));
                    coordinators.get(backend).checkClientOptions(Duration.ofSeconds(leaseTtlSeconds));
                }
            }
            if (failover) {
                return new FailoverBench(database, coordinators, backends, Duration.ofSeconds(leaseTtlSeconds),
                        failoverRounds, out, err).run() ? 0 : 1;
            }
            return new ThroughputBench(this, database, coordinators, out, err).run();
        } finally {
            coordinators.values().forEach(BenchCoordinator::close);
        }
    }

    /** The 1-minute load average, as the report of every figure needs it on a shared machine. */
    static String loadAverage() {
        double load = java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        return load < 0 ? "unknown" : String.format(java.util.Locale.ROOT, "%.2f", load);
    }

    static Path htmlNextTo(Path csv) {
        String name = csv.getFileName().toString();
        String base = name.endsWith(".csv") ? name.substring(0, name.length() - 4) : name;
        return csv.resolveSibling(base + ".html");
    }

    /** The {@code --backend-option}s given for {@code backend}, their prefix taken off. */
    Map<String, String> optionsFor(String backend) {
        Map<String, String> options = new LinkedHashMap<>();
        backendOptions.forEach((key, value) -> {
            if (key.startsWith(backend + ".")) {
                options.put(key.substring(backend.length() + 1), value);
            }
        });
        return options;
    }

    /** Backends measured without a coordinator: the database backend and the bare-SQL baseline. */
    private static boolean local(String backend) {
        return backend.equals(BenchReport.DATABASE) || backend.equals(BenchReport.BASELINE);
    }

    /** The modes measured: --modes, else feeder, and backlog too when --backlog is given. */
    List<String> modes() {
        if (modes == null || modes.isEmpty()) {
            return backlog > 0 ? List.of(BenchResult.FEEDER, BenchResult.BACKLOG) : List.of(BenchResult.FEEDER);
        }
        for (String mode : modes) {
            check(mode.equals(BenchResult.FEEDER) || mode.equals(BenchResult.BACKLOG),
                    "--modes takes feeder and backlog, was '" + mode + "'");
        }
        check(!modes.contains(BenchResult.BACKLOG) || backlog > 0, "--modes backlog needs --backlog N, the rows to drain");
        return List.copyOf(new java.util.LinkedHashSet<>(modes));
    }

    private Optional<String> addressOf(String backend) {
        switch (backend) {
            case "redis":
                return Optional.ofNullable(redis);
            case "zookeeper":
                return Optional.ofNullable(zookeeper);
            case "hazelcast":
                return Optional.ofNullable(hazelcast);
            default:
                throw new IllegalArgumentException("unknown backend '" + backend
                        + "' in --backends: choose among database, baseline, redis, zookeeper, hazelcast");
        }
    }

    ReleasingLeaseManager.Mode releaseMode() {
        try {
            return ReleasingLeaseManager.Mode.valueOf(release.toUpperCase(java.util.Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--release must be sync, async or expire, was '" + release + "'");
        }
    }

    boolean durableClaimRecords() {
        if (!claimRecords.equals("durable") && !claimRecords.equals("relaxed")) {
            throw new IllegalArgumentException("--claim-records must be durable or relaxed, was '" + claimRecords + "'");
        }
        return claimRecords.equals("durable");
    }

    /** The claim mode of partition leases: --claim-mode, lean when not given. */
    ClaimMode partitionClaimMode() {
        return claimMode == null ? ClaimMode.LEAN : ClaimMode.parse(claimMode);
    }

    /** The claim mode of the external backends' row leases: --claim-mode, recorded when not given. */
    ClaimMode rowClaimMode() {
        return claimMode == null ? ClaimMode.RECORDED : ClaimMode.parse(claimMode);
    }

    boolean partition() {
        return "partition".equals(leaseGranularity);
    }

    private void validate() {
        check("row".equals(leaseGranularity) || "partition".equals(leaseGranularity),
                "--granularity must be row or partition, was '" + leaseGranularity + "'");
        check(!(failover && partition()), "--failover measures row leases; drop --granularity partition");
        releaseMode();
        durableClaimRecords();
        rowClaimMode();
        ReleaseAfterCompletion.parse(releaseAfterCompletion);
        if (backends.isEmpty()) {
            throw new IllegalArgumentException("--backends must name at least one backend");
        }
        for (String backend : backends) {
            if (!local(backend)) {
                addressOf(backend);
            }
        }
        check(!(failover && backends.contains(BenchReport.BASELINE)), "--failover measures lease holders; drop baseline from --backends");
        if (BenchDatabase.kindOf(jdbcUrl) == DatabaseKind.MARIADB) {
            check(!backends.contains(BenchReport.BASELINE), "--backends baseline needs PostgreSQL (its bare statements are "
                    + "PostgreSQL's); drop baseline from --backends on MariaDB");
            check(fillfactor == 0, "--fillfactor needs PostgreSQL; drop it on MariaDB");
            check(claimRecords.equals("durable"), "--claim-records relaxed needs PostgreSQL (synchronous_commit); drop it on MariaDB");
            check(!failover, "--failover needs PostgreSQL; drop it on MariaDB");
        }
        check(backlog >= 0 && backlog <= 100_000_000, "--backlog must be in 0..100000000, was " + backlog);
        check(rounds >= 1 && rounds <= 20, "--rounds must be in 1..20, was " + rounds);
        check(payload >= 16 && payload <= 100_000, "--payload must be in 16..100000 bytes, was " + payload);
        check(fillfactor == 0 || fillfactor >= 10 && fillfactor <= 100, "--fillfactor must be in 10..100, was " + fillfactor);
        modes();
        for (String key : backendOptions.keySet()) {
            int dot = key.indexOf('.');
            String prefix = dot > 0 ? key.substring(0, dot) : "";
            check(dot > 0 && dot < key.length() - 1 && !local(prefix) && backends.contains(prefix),
                    "--backend-option " + key + ": name it BACKEND.NAME=VALUE with BACKEND one of the external backends in "
                            + "--backends " + backends.stream().filter(b -> !local(b)).toList()
                            + ", e.g. hazelcast.row-group-block=128");
        }
        if (backends.stream().distinct().count() != backends.size()) {
            throw new IllegalArgumentException("--backends names a backend twice: " + backends);
        }
        check(workers >= 1 && workers <= 64, "--workers must be in 1..64, was " + workers);
        check(batch >= 1 && batch <= 10_000, "--batch must be in 1..10000, was " + batch);
        check(seconds >= 1, "--seconds must be at least 1, was " + seconds);
        check(warmup >= 0, "--warmup must not be negative, was " + warmup);
        check(leaseTtlSeconds >= 2, "--lease-ttl must be at least 2 seconds, was " + leaseTtlSeconds);
        check(candidateSpread >= 0 && candidateSpread <= 100, "--candidate-spread must be in 0..100, was " + candidateSpread);
        check(candidateOverAsk >= 1 && candidateOverAsk <= 10, "--candidate-over-ask must be in 1..10, was " + candidateOverAsk);
        check(history >= 0 && history <= 10_000_000, "--history must be in 0..10000000, was " + history);
        check(failoverRounds >= 1, "--failover-rounds must be at least 1, was " + failoverRounds);
        validateLatency();
    }

    private void validateLatency() {
        check(!wakeUps.isEmpty() && wakeUps.stream().distinct().count() == wakeUps.size(),
                "--wake-ups takes true, false, or both once each, was " + wakeUps);
        check(WakeUpSwitch.AVAILABLE || !wakeUps.contains(true), "--wake-ups true needs a drain with wake-ups, which this "
                + "build has not: measure with --wake-ups false (idle polling from 100 ms to 5 s)");
        check(idleRate > 0 && idleRate <= 1_000, "--idle-rate must be in (0, 1000] rows a second, was " + idleRate);
        check(latencySeconds >= 1, "--latency-seconds must be at least 1, was " + latencySeconds);
        givenRate();
        if (latency) {
            check(!failover, "--latency and --failover measure different things: run them one at a time");
            check(backends.stream().anyMatch(b -> !b.equals(BenchReport.BASELINE)), "--latency measures drains: add a "
                    + "backend other than baseline to --backends");
        }
    }

    /** {@code --rate} as rows a second; NaN for {@code half} (half of the throughput measured in the run). */
    double givenRate() {
        if (rate.equals("half")) {
            return Double.NaN;
        }
        try {
            double r = Double.parseDouble(rate);
            check(r > 0 && r <= 1_000_000, "--rate must be in (0, 1000000] rows a second, or half, was " + rate);
            return r;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--rate must be a number of rows a second or half, was '" + rate + "'");
        }
    }

    private static void check(boolean ok, String message) {
        if (!ok) {
            throw new IllegalArgumentException(message);
        }
    }
}
