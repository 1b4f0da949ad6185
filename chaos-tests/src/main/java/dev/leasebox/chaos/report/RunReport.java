package dev.leasebox.chaos.report;

import dev.leasebox.chaos.check.CheckResult;
import dev.leasebox.chaos.history.FaultEvent;
import dev.leasebox.chaos.history.Json;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Writes one scenario's report into its directory: {@code summary.json} (the figures, machine-read),
 * {@code report.md} (the figures and every violation, for people) and {@code timeline.html} (an
 * inline SVG: entries by time, each claim a bar coloured by its holder, faults as vertical lines).
 */
public final class RunReport {

    private RunReport() {
    }

    /**
     * What a scenario run was, for the report's header.
     *
     * @param granularity what the workers leased, as {@code leasebox worker --granularity} says it
     * @param ordered     per-key ordering ({@code --ordered})
     * @param partitionClaims {@code lean} or {@code recorded} with partition leases; empty with row leases
     * @param claimMode   {@code recorded} or {@code lean}: how the run's claims were made (either granularity)
     * @param downstream  where the workers sent: {@code jdbc-inbox} or {@code kafka} (whose receipt times count
     *                    milliseconds: the offline check judges them as the run did)
     * @param variant     the claim variant as the run's directory names it ({@code partition-lean},
     *                    {@code lean-non-terminal}, …); empty for recorded row claims released by default
     * @param releaseAfterCompletion the workers' {@code --release-after-completion}
     * @param releaseInBackground    the workers' {@code --release-in-background}
     * @param switchedWorkers the workers, comma-separated, that replaced the run's fleet with lean partition claims
     *                    (a migration: the checker judges their claims as such); empty when the run kept one style
     */
    public record Run(String backend, String scenario, String proves, double seconds, boolean unsafeNoFence,
                      String error, String granularity, boolean ordered, String partitionClaims, String claimMode,
                      String downstream, String variant, String releaseAfterCompletion, boolean releaseInBackground,
                      String switchedWorkers) {

        /** A row-lease run. */
        public Run(String backend, String scenario, String proves, double seconds, boolean unsafeNoFence, String error) {
            this(backend, scenario, proves, seconds, unsafeNoFence, error, "row", false, "", "recorded", "jdbc-inbox",
                    "", "always", false, "");
        }
    }

    public static Map<String, Object> summary(Run run, CheckResult r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("backend", run.backend());
        m.put("scenario", run.scenario());
        m.put("passed", run.error().isEmpty() && r.passed());
        m.put("unsafeNoFence", run.unsafeNoFence());
        m.put("leaseGranularity", run.granularity());
        m.put("ordered", run.ordered());
        m.put("partitionClaims", run.partitionClaims());
        m.put("claimMode", run.claimMode());
        m.put("downstream", run.downstream());
        m.put("variant", run.variant());
        m.put("releaseAfterCompletion", run.releaseAfterCompletion());
        m.put("releaseInBackground", run.releaseInBackground());
        m.put("switchedWorkers", run.switchedWorkers());
        m.put("seconds", round(run.seconds()));
        m.put("entries", r.entries());
        m.put("delivered", r.delivered());
        m.put("deadLettered", r.deadLettered());
        m.put("lost", r.lost());
        m.put("staleCompletionsAccepted", r.staleCompletionsAccepted());
        m.put("fenceRegressions", r.fenceRegressions());
        m.put("emissions", r.emissions());
        m.put("duplicateEmissions", r.duplicateEmissions());
        m.put("unexplainedDuplicates", r.unexplainedDuplicates());
        m.put("duplicatesByExpiry", r.duplicatesByCause().getOrDefault("expiry", 0));
        m.put("duplicatesByLoss", r.duplicatesByCause().getOrDefault("loss", 0));
        m.put("duplicatesByRetry", r.duplicatesByCause().getOrDefault("retry", 0));
        m.put("inboxDuplicates", r.inboxDuplicates());
        m.put("completionsRefused", r.completionsRefused());
        m.put("faultsInjected", r.faultsInjected());
        m.put("orderViolations", r.orderViolations());
        m.put("prematureTakeovers", r.prematureTakeovers());
        m.put("duplicatesByCoordinatorLoss", r.duplicatesByCause().getOrDefault("coordinator-loss", 0));
        // figures reported beside the violations (never failing a run) keep their own name
        r.violationsByClass().forEach((k, v) -> m.put(
                dev.leasebox.chaos.evidence.DeliveryChecker.REPORTED_ONLY.contains(k) ? k : "violations." + k, v));
        m.put("reclaimSamples", r.reclaimSeconds().size());
        m.put("reclaimSecondsP50", round(r.reclaimSecondsP50()));
        m.put("reclaimSecondsMax", round(r.reclaimSecondsMax()));
        m.put("error", run.error());
        return m;
    }

    private static double round(double v) {
        return Math.round(v * 1000) / 1000.0;
    }

    public static void write(Path dir, Run run, CheckResult r, List<FaultEvent> faults) {
        try {
            Files.createDirectories(dir);
            Files.writeString(dir.resolve("summary.json"), Json.object(summary(run, r)) + "\n");
            Files.writeString(dir.resolve("report.md"), markdown(run, r, faults));
            Files.writeString(dir.resolve("timeline.html"), Timeline.html(run, r, faults));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the report into " + dir + ": " + e.getMessage(), e);
        }
    }

    static String markdown(Run run, CheckResult r, List<FaultEvent> faults) {
        StringBuilder b = new StringBuilder();
        boolean passed = run.error().isEmpty() && r.passed();
        b.append("# Chaos run: ").append(run.scenario()).append(" on ").append(run.backend())
                .append("partition".equals(run.granularity()) ? ", partition leases (" + run.partitionClaims() + " claims"
                        + (run.ordered() ? ", ordered" : "") + ")" : "lean".equals(run.claimMode()) ? ", row leases (lean claims)" : "")
                .append(run.variant().isEmpty() ? "" : " [" + run.variant() + "]")
                .append(run.unsafeNoFence() ? " (UNSAFE: no fence)" : "").append("\n\n");
        b.append("**").append(passed ? "PASSED" : "FAILED").append("** in ")
                .append(String.format(Locale.ROOT, "%.1f", run.seconds())).append(" s. ").append(run.proves()).append("\n\n");
        if (!run.error().isEmpty()) {
            b.append("Harness error: `").append(run.error()).append("`\n\n");
        }
        r.brokenInvariants().forEach(i -> b.append("- broken: ").append(i).append('\n'));
        b.append("\n| figure | value |\n|---|---|\n");
        summary(run, r).forEach((k, v) -> {
            if (!"error".equals(k) && !k.startsWith("violations.")) {
                b.append("| ").append(k).append(" | ").append(v).append(" |\n");
            }
        });
        b.append("\n## Violations by class\n\n| class | count |\n|---|---|\n");
        r.violationsByClass().forEach((k, v) -> b.append("| ").append(k).append(" | ").append(v)
                .append(dev.leasebox.chaos.evidence.DeliveryChecker.REPORTED_ONLY.contains(k) ? " (reported, not a violation)" : "")
                .append(" |\n"));
        b.append("\n## Faults\n\n| t (ms) | fault | target | detail |\n|---|---|---|---|\n");
        for (FaultEvent f : faults) {
            b.append("| ").append(f.t()).append(" | ").append(f.fault()).append(" | ").append(f.target()).append(" | ")
                    .append(f.detail().replace("|", "/")).append(" |\n");
        }
        if (!r.violations().isEmpty()) {
            b.append("\n## Violations (first ").append(r.violations().size()).append(")\n\n");
            r.violations().forEach(v -> b.append("- ").append(v).append('\n'));
        }
        b.append("\nTimeline: [timeline.html](timeline.html). Histories: `history-*.jsonl`; faults: `faults.jsonl`; "
                + "evidence the workers do not write: `audit.jsonl`, `deliveries.jsonl`, `final.jsonl` "
                + "(re-check offline: `leasebox chaos check DIR`).\n");
        return b.toString();
    }
}
