package dev.leasebox.chaos.cli;

import dev.leasebox.chaos.check.CheckResult;
import dev.leasebox.chaos.evidence.ReportCheck;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * {@code leasebox chaos check DIR}: re-runs the checker on a report directory from its files alone
 * (histories, faults, {@code final.jsonl}, {@code audit.jsonl}, the rules in {@code summary.json}), so
 * a run can be judged again offline or by a newer checker. Nothing in the directory is rewritten.
 */
@Command(name = "check", mixinStandardHelpOptions = true,
        description = {"Re-check a chaos report directory (one run) from its files alone.",
                "Exit 0: every invariant held; 1: one broke; 2: the directory could not be checked."})
public final class ChaosCheckCommand implements Callable<Integer> {

    @Parameters(index = "0", paramLabel = "DIR", description = "A run's report directory, e.g. chaos-report/database-worker-kill.")
    Path dir;

    @Override
    public Integer call() {
        PrintStream out = System.out;
        ReportCheck.Outcome o = ReportCheck.check(dir);
        if (o.exitCode() == ReportCheck.COULD_NOT_CHECK) {
            out.println("chaos check: cannot check " + dir + ": " + o.error());
            out.flush();
            return o.exitCode();
        }
        CheckResult r = o.result();
        out.printf(Locale.ROOT, "chaos check %s: %s: lost %d, stale accepted %d, fence regressions %d, premature takeovers %d, "
                        + "duplicates %d (unexplained %d), faults %d, order violations %d%s%n", dir,
                o.exitCode() == ReportCheck.HELD ? "HELD" : "BROKE", r.lost(), r.staleCompletionsAccepted(),
                r.fenceRegressions(), r.prematureTakeovers(), r.duplicateEmissions(), r.unexplainedDuplicates(),
                r.faultsInjected(), r.orderViolations(), o.audited() ? ", audit " + r.auditViolations() : ", no audit.jsonl");
        r.brokenInvariants().forEach(b -> out.println("  broken: " + b));
        r.violations().forEach(v -> out.println("  " + v));
        out.flush();
        return o.exitCode();
    }
}
