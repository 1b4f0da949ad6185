package dev.leasebox.chaos.cli;

import dev.leasebox.LeaseboxSettings;
import dev.leasebox.chaos.harness.Granularity;
import dev.leasebox.chaos.scenario.Coordinators;
import dev.leasebox.chaos.scenario.RunSettings;
import dev.leasebox.chaos.scenario.Scenario;
import dev.leasebox.chaos.scenario.ScenarioRunner;
import dev.leasebox.chaos.scenario.Suite;
import dev.leasebox.lease.spi.Durations;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code leasebox chaos}: runs a scenario (or, with {@code --suite}, every scenario on every backend)
 * against real processes and checks the histories. Exit 0 when every invariant held, 1 when one
 * broke, 2 on a harness error (a server that would not start, a bad option). {@code leasebox chaos check DIR}
 * re-judges one run's report directory from its files ({@link ChaosCheckCommand}).
 */
@Command(name = "chaos", mixinStandardHelpOptions = true, subcommands = ChaosCheckCommand.class,
        description = {"Run chaos scenarios against real worker JVMs, coordinators and PostgreSQL, and check the histories.",
                "Exit 0: every invariant held; 1: one broke; 2: harness error."})
public final class ChaosCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--backend", paramLabel = "NAME", description = "database, redis, zookeeper or hazelcast (with --suite: only this one).")
    String backend;

    @Option(names = "--scenario", paramLabel = "NAME", completionCandidates = ScenarioNames.class,
            description = "One of: ${COMPLETION-CANDIDATES}.")
    String scenario;

    /** Every scenario's name, for the help: the list cannot drift from the scenarios. */
    static final class ScenarioNames implements Iterable<String> {
        @Override
        public java.util.Iterator<String> iterator() {
            return Scenario.names().iterator();
        }
    }

    @Option(names = "--suite", description = "The CI suite (each scenario on the backends where it reaches different "
            + "code, and the lean variants), on every available backend (or on --backend).")
    boolean suite;

    @Option(names = "--full", description = "With --suite: every scenario on every backend it applies to, and every "
            + "claim variant (longer than CI allows; see docs/chaos.md).")
    boolean full;

    @Option(names = "--duration", paramLabel = "DURATION", defaultValue = "15s", converter = Seconds.class,
            description = "The fault window per scenario, e.g. 15s (default: ${DEFAULT-VALUE}).")
    Duration duration;

    @Option(names = "--lease", paramLabel = "DURATION", defaultValue = "3s", converter = Seconds.class,
            description = "The workers' lease duration (default: ${DEFAULT-VALUE}).")
    Duration lease;

    @Option(names = "--report-dir", paramLabel = "DIR", defaultValue = "chaos-report",
            description = "Where reports go, one directory per run (default: ${DEFAULT-VALUE}).")
    Path reportDir;

    @Option(names = "--jdbc-url", paramLabel = "URL", defaultValue = RunSettings.DEFAULT_JDBC,
            description = "PostgreSQL for the outbox; each run makes a fresh schema (default: ${DEFAULT-VALUE}).")
    String jdbcUrl;

    @Option(names = "--rate", paramLabel = "N", defaultValue = "150", description = "Entries enqueued per second during the window (default: ${DEFAULT-VALUE}).")
    int rate;

    @Option(names = "--unsafe-no-fence", description = "CHAOS ONLY: workers complete without the fence check. Fencing scenarios must then fail.")
    boolean unsafeNoFence;

    @Option(names = "--keep-schema", description = "Leave each run's schema in the database.")
    boolean keepSchema;

    @Option(names = "--granularity", paramLabel = "row|partition", defaultValue = "row",
            description = {"What the workers lease, as leasebox worker --granularity (default: ${DEFAULT-VALUE}).",
                    "partition: slots of the table; the workload then spreads entries over 32 partition keys."})
    String leaseGranularity;

    @Option(names = "--ordered", description = "With partition: workers run --ordered, and the checker requires each key's "
            + "entries to be first delivered in id order (orderViolations = 0).")
    boolean ordered;

    @Option(names = "--claim-mode", paramLabel = "recorded|lean",
            description = {"The workers' --claim-mode, as leasebox worker's (default: recorded for row leases, lean for "
                    + "partition leases).", "lean: nothing is written before emitting; the checker holds the run "
                    + "to lean's guarantee (docs/chaos.md). Lean row leases need an external backend."})
    String claimMode;

    @Option(names = "--release-after-completion", paramLabel = "always|non-terminal", defaultValue = "always",
            description = {"Row leases through an external backend: the workers' --release-after-completion, as leasebox "
                    + "worker's (default: ${DEFAULT-VALUE}).", "non-terminal: the leases of finished rows lapse at the ttl "
                    + "(redis only)."})
    String releaseAfterCompletion;

    @Option(names = "--release-in-background", description = "Row leases through an external backend: the workers' "
            + "--release-in-background, as leasebox worker's.")
    boolean releaseInBackground;

    @Option(names = "--row-grouping", paramLabel = "per-row|grouped", defaultValue = "",
            description = {"Row leases through an external backend: a lease per row (--backend-option row-groups=0) or "
                    + "rows grouped (row-groups=4096), whatever the backend's default (grouped on zookeeper and "
                    + "hazelcast, a lease per row on redis)."})
    String rowGrouping;

    @Override
    public Integer call() {
        if (System.getProperty("logback.configurationFile") == null) {
            // The harness's own pools and clients log warnings only: progress lines are the output.
            System.setProperty("logback.configurationFile", "chaos-worker-logback.xml");
        }
        PrintStream out = System.out;
        List<String> backends = Coordinators.available();
        if (backend != null && !backends.contains(backend)) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--backend " + backend
                    + " is not available here: choose one of " + backends);
        }
        checkLease(spec.commandLine());
        List<Scenario> scenarios = chosenScenarios();
        Granularity granularity = granularity();
        List<String> runOn = backend != null ? List.of(backend) : backends;
        RunSettings settings = new RunSettings(jdbcUrl, duration, lease, 300, rate, Duration.ofSeconds(40),
                reportDir, unsafeNoFence, keepSchema, granularity);
        return suite ? runSuite(out, runOn, settings, granularity) : runScenarios(out, runOn, scenarios, settings, granularity);
    }

    /**
     * The workers' claim options, refused in one line naming the flags where {@code leasebox worker} would refuse
     * them: {@code --release-after-completion non-terminal} needs {@code --backend redis}, and neither release option
     * applies to the {@code database} backend or to partition leases.
     */
    Granularity granularity() {
        try {
            boolean partition = "partition".equals(leaseGranularity);
            String mode = claimMode != null ? claimMode : partition ? "lean" : "recorded";
            Granularity g = new Granularity(leaseGranularity, ordered, partition ? mode : "lean", partition ? "recorded" : mode)
                    .withRelease(releaseAfterCompletion, releaseInBackground).withRowGrouping(rowGrouping).validated();
            if (!rowGrouping.isEmpty() && (g.isPartition() || "database".equals(backend))) {
                throw new IllegalArgumentException("--row-grouping is for row leases through an external backend "
                        + "(redis, zookeeper or hazelcast): drop it" + (g.isPartition() ? " or --granularity partition"
                        : " or use another --backend"));
            }
            if (!g.releasesAsDefault() && backend == null) {
                throw new IllegalArgumentException("--release-after-completion non-terminal and --release-in-background "
                        + "need --backend (redis, zookeeper or hazelcast; non-terminal: redis only)");
            }
            String refused = backend == null ? "" : g.releaseRefusedOn(backend);
            if (!refused.isEmpty()) {
                throw new IllegalArgumentException(refused);
            }
            return g;
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
    }

    /** Every scenario with {@code --suite}, else the one {@code --scenario} names (with {@code --backend}). */
    private List<Scenario> chosenScenarios() {
        if (full && !suite) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--full goes with --suite");
        }
        if (suite) {
            return Scenario.ALL;
        }
        if (backend == null || scenario == null) {
            throw new CommandLine.ParameterException(spec.commandLine(),
                    "give --backend and --scenario, or --suite; scenarios: " + Scenario.names());
        }
        return List.of(Scenario.named(scenario).orElseThrow(() -> new CommandLine.ParameterException(
                spec.commandLine(), "unknown --scenario '" + scenario + "': choose one of " + Scenario.names())));
    }

    private int runSuite(PrintStream out, List<String> runOn, RunSettings settings, Granularity granularity) {
        List<ScenarioRunner.Outcome> outcomes = new ArrayList<>();
        List<String> skipped = new ArrayList<>();
        List<Suite.Case> cases = full ? Suite.full(runOn) : Suite.ci(runOn);
        for (Suite.Case c : cases) {
            Scenario s = Scenario.named(c.scenario()).orElseThrow();
            if ("database".equals(c.backend()) && c.granularity(granularity).isLeanRows()) {
                skipped.add(c.caseName() + " on database: --claim-mode lean needs an external backend");
                continue;
            }
            String refused = c.granularity(granularity).releaseRefusedOn(c.backend());
            refused = refused.isEmpty() ? s.refusedWith(c.granularity(granularity)) : refused;
            if (!refused.isEmpty()) {
                skipped.add(c.caseName() + " on " + c.backend() + ": " + refused);
                continue;
            }
            outcomes.add(ScenarioRunner.run(c.backend(), s, settings.withGranularity(c.granularity(granularity)), out));
        }
        printTable(out, outcomes, skipped);
        return outcomes.stream().mapToInt(ScenarioRunner.Outcome::exitCode).max().orElse(0);
    }

    private int runScenarios(PrintStream out, List<String> runOn, List<Scenario> scenarios, RunSettings settings,
                             Granularity granularity) {
        List<ScenarioRunner.Outcome> outcomes = new ArrayList<>();
        List<String> skipped = new ArrayList<>();
        for (String b : runOn) {
            for (Scenario s : scenarios) {
                String reason = s.unavailableReason(b);
                if (reason.isEmpty() && granularity.isLeanRows() && "database".equals(b)) {
                    reason = "--claim-mode lean needs an external backend (the database backend claims in the row itself)";
                }
                reason = reason.isEmpty() ? s.refusedWith(granularity) : reason;
                if (!reason.isEmpty()) {
                    skipped.add(s.name() + " on " + b + ": " + reason);
                    if (!suite) {
                        out.println("chaos: cannot run " + s.name() + " on " + b + ": " + reason);
                        return 2;
                    }
                    continue;
                }
                outcomes.add(ScenarioRunner.run(b, s, settings, out));
            }
        }
        printTable(out, outcomes, skipped);
        int exit = 0;
        for (ScenarioRunner.Outcome o : outcomes) {
            exit = Math.max(exit, o.exitCode());
        }
        return exit;
    }

    static void printTable(PrintStream out, List<ScenarioRunner.Outcome> outcomes, List<String> skipped) {
        out.println();
        out.printf("%-10s %-34s %-7s %5s %6s %6s %6s %6s %7s %6s %6s %8s %8s %6s%n", "backend", "scenario", "result",
                "lost", "stale", "fence", "dups", "unexpl", "refused", "faults", "order", "reclP50", "reclMax", "secs");
        for (ScenarioRunner.Outcome o : outcomes) {
            Map<String, Object> s = o.summary();
            Object variant = s.getOrDefault("variant", "");
            out.printf(Locale.ROOT, "%-10s %-34s %-7s %5s %6s %6s %6s %6s %7s %6s %6s %8s %8s %6.0f%n", o.backend(),
                    o.scenario() + (variant.toString().isEmpty() ? "" : "@" + variant),
                    o.exitCode() == 0 ? "pass" : o.exitCode() == 1 ? "FAIL" : "ERROR", s.get("lost"),
                    s.get("staleCompletionsAccepted"), s.get("fenceRegressions"), s.get("duplicateEmissions"),
                    s.get("unexplainedDuplicates"), s.get("completionsRefused"), s.get("faultsInjected"),
                    s.get("orderViolations"), s.get("reclaimSecondsP50"), s.get("reclaimSecondsMax"), ((Number) s.get("seconds")).doubleValue());
        }
        skipped.forEach(s -> out.println("skipped: " + s));
        out.flush();
    }

    /** The workers refuse a lease below {@link LeaseboxSettings#MIN_LEASE_TTL}: say so before any worker starts. */
    void checkLease(CommandLine commandLine) {
        if (lease.compareTo(LeaseboxSettings.MIN_LEASE_TTL) < 0) {
            throw new CommandLine.ParameterException(commandLine, "--lease must be at least "
                    + Durations.format(LeaseboxSettings.MIN_LEASE_TTL) + " (the workers' --lease-ttl), was " + Durations.format(lease));
        }
    }

    /** Durations as every Leasebox command reads them ({@link Durations}: {@code 15s}, {@code 500ms}, {@code 1m30s}). */
    static final class Seconds implements CommandLine.ITypeConverter<Duration> {
        @Override
        public Duration convert(String value) {
            try {
                return Durations.parse(value);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.TypeConversionException(e.getMessage());
            }
        }
    }
}
