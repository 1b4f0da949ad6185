package dev.leasebox.chaos.check;

import java.util.List;
import java.util.Map;

/**
 * What the checker found. The run passes when nothing was lost, no stale completion was accepted,
 * no fence went backwards, every duplicate emission is explained, at least one fault happened, and —
 * in an ordered run — every partition key's entries were first delivered in id order.
 *
 * @param entries                  outbox rows at the end
 * @param delivered                rows DELIVERED
 * @param deadLettered             rows DEAD_LETTERED
 * @param lost                     rows neither DELIVERED nor DEAD_LETTERED, or DELIVERED but absent downstream
 * @param staleCompletionsAccepted completions accepted under a fence lower than a claim recorded before them
 * @param fenceRegressions         rows whose claims did not strictly increase their fence
 * @param emissions                provider invocations
 * @param duplicateEmissions       emissions of an entry an earlier claim may already have delivered
 * @param duplicatesByCause        explained duplicates by cause ({@code expiry}, {@code loss}, {@code retry})
 * @param unexplainedDuplicates    duplicates with no expiry, loss or finished earlier claim before the later grant
 * @param inboxDuplicates          extra deliveries the downstream inbox counted
 * @param completionsRefused       stale completions the store refused (fencing at work)
 * @param faultsInjected           faults the harness injected
 * @param reclaimSeconds           per entry held by a killed, paused or partitioned worker: seconds until another worker claimed it
 * @param violations               one line per broken invariant instance (capped)
 * @param spans                    every claim as a time span, for the timeline
 * @param orderViolations          entries first delivered before an earlier entry of their partition key (inbox order)
 * @param orderChecked             whether the run was ordered, so that order violations break it
 * @param prematureTakeovers       row claims granted to another worker while, by real time, an earlier lease stood
 * @param violationsByClass        every violation class of {@code HistoryChecker.Violation} with its count (and, once
 *                                 {@link #withAudit} added them, of {@code AuditChecker})
 * @param auditViolations          violations found in the database's audit alone, by class of {@code AuditChecker};
 *                                 empty when no audit was judged
 */
public record CheckResult(int entries, int delivered, int deadLettered, int lost, int staleCompletionsAccepted,
                          int fenceRegressions, int emissions, int duplicateEmissions,
                          Map<String, Integer> duplicatesByCause, int unexplainedDuplicates, int inboxDuplicates,
                          int completionsRefused, int faultsInjected, List<Double> reclaimSeconds,
                          List<String> violations, List<ClaimSpan> spans, int orderViolations, boolean orderChecked,
                          int prematureTakeovers, Map<String, Integer> violationsByClass,
                          Map<String, Integer> auditViolations) {

    /** A result judged from the histories only (no audit). */
    public CheckResult(int entries, int delivered, int deadLettered, int lost, int staleCompletionsAccepted,
                       int fenceRegressions, int emissions, int duplicateEmissions,
                       Map<String, Integer> duplicatesByCause, int unexplainedDuplicates, int inboxDuplicates,
                       int completionsRefused, int faultsInjected, List<Double> reclaimSeconds,
                       List<String> violations, List<ClaimSpan> spans, int orderViolations, boolean orderChecked,
                       int prematureTakeovers, Map<String, Integer> violationsByClass) {
        this(entries, delivered, deadLettered, lost, staleCompletionsAccepted, fenceRegressions, emissions,
                duplicateEmissions, duplicatesByCause, unexplainedDuplicates, inboxDuplicates, completionsRefused,
                faultsInjected, reclaimSeconds, violations, spans, orderViolations, orderChecked, prematureTakeovers,
                violationsByClass, Map.of());
    }

    /** A result without real-time takeover figures (a run that never reached the checker). */
    public CheckResult(int entries, int delivered, int deadLettered, int lost, int staleCompletionsAccepted,
                       int fenceRegressions, int emissions, int duplicateEmissions,
                       Map<String, Integer> duplicatesByCause, int unexplainedDuplicates, int inboxDuplicates,
                       int completionsRefused, int faultsInjected, List<Double> reclaimSeconds,
                       List<String> violations, List<ClaimSpan> spans, int orderViolations, boolean orderChecked) {
        this(entries, delivered, deadLettered, lost, staleCompletionsAccepted, fenceRegressions, emissions,
                duplicateEmissions, duplicatesByCause, unexplainedDuplicates, inboxDuplicates, completionsRefused,
                faultsInjected, reclaimSeconds, violations, spans, orderViolations, orderChecked, 0, Map.of());
    }

    public CheckResult {
        violationsByClass = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(violationsByClass));
        auditViolations = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(auditViolations));
        duplicatesByCause = Map.copyOf(duplicatesByCause);
        reclaimSeconds = List.copyOf(reclaimSeconds);
        violations = List.copyOf(violations);
        spans = List.copyOf(spans);
    }

    /**
     * This result with what the audit (or the deliveries) showed; may be called once per checker: its classes join {@link #violationsByClass()} (so
     * {@code summary.json} has {@code violations.<class>}), its lines join {@link #violations()}, and any
     * of them breaks the run.
     */
    public CheckResult withAudit(dev.leasebox.chaos.evidence.AuditChecker.Result audit) {
        java.util.Map<String, Integer> byClass = new java.util.LinkedHashMap<>(violationsByClass);
        byClass.putAll(audit.byClass());
        List<String> lines = new java.util.ArrayList<>(violations);
        lines.addAll(audit.violations());
        java.util.Map<String, Integer> judged = new java.util.LinkedHashMap<>(auditViolations);
        judged.putAll(audit.byClass());
        return new CheckResult(entries, delivered, deadLettered, lost, staleCompletionsAccepted, fenceRegressions,
                emissions, duplicateEmissions, duplicatesByCause, unexplainedDuplicates, inboxDuplicates,
                completionsRefused, faultsInjected, reclaimSeconds, lines, spans, orderViolations, orderChecked,
                prematureTakeovers, byClass, judged);
    }

    private int audit(String kind) {
        return auditViolations.getOrDefault(kind, 0);
    }

    /** One claim from grant to its end (completion, loss, or recorded expiry), for the timeline. */
    public record ClaimSpan(long entry, String owner, long fence, long start, long end, String outcome) {
    }

    /** Whether every invariant held and the scenario's faults really happened. */
    public boolean passed() {
        return lost == 0 && staleCompletionsAccepted == 0 && fenceRegressions == 0 && unexplainedDuplicates == 0
                && prematureTakeovers == 0 && faultsInjected > 0 && (!orderChecked || orderViolations == 0)
                && auditViolations.entrySet().stream().allMatch(e -> e.getValue() == 0
                        || dev.leasebox.chaos.evidence.DeliveryChecker.REPORTED_ONLY.contains(e.getKey()));
    }

    public double reclaimSecondsP50() {
        return percentile(0.5);
    }

    public double reclaimSecondsMax() {
        return reclaimSeconds.stream().mapToDouble(Double::doubleValue).max().orElse(0);
    }

    private double percentile(double p) {
        if (reclaimSeconds.isEmpty()) {
            return 0;
        }
        List<Double> sorted = reclaimSeconds.stream().sorted().toList();
        int index = (int) Math.ceil(p * sorted.size()) - 1;
        return sorted.get(Math.max(0, Math.min(sorted.size() - 1, index)));
    }

    /** The invariants that failed, by name; empty when {@link #passed()}. */
    public List<String> brokenInvariants() {
        List<String> broken = new java.util.ArrayList<>();
        if (lost > 0) {
            broken.add("nothing lost (" + lost + " lost)");
        }
        if (staleCompletionsAccepted > 0) {
            broken.add("no stale finalization (" + staleCompletionsAccepted + " stale completions accepted)");
        }
        if (fenceRegressions > 0) {
            broken.add("fences only grow (" + fenceRegressions + " regressions)");
        }
        int sameFence = violationsByClass.getOrDefault(HistoryChecker.Violation.SAME_FENCE_EMISSION, 0);
        if (sameFence > 0) {
            broken.add("no two emissions of one entry under one fence (" + sameFence + " repeated)");
        }
        if (unexplainedDuplicates > sameFence) {
            broken.add("duplicates only across expiry (" + (unexplainedDuplicates - sameFence) + " unexplained)");
        }
        if (prematureTakeovers > 0) {
            broken.add("no takeover while a lease stands, by real time (" + prematureTakeovers + " premature takeovers)");
        }
        if (faultsInjected == 0) {
            broken.add("the scenario's fault happened (none was injected)");
        }
        if (orderChecked && orderViolations > 0) {
            broken.add("per-key order of first deliveries (" + orderViolations + " entries delivered before an earlier one)");
        }
        int auditStale = audit(dev.leasebox.chaos.evidence.AuditChecker.STALE_FINALIZATION);
        if (auditStale > 0) {
            broken.add("no stale finalization, from the audit (" + auditStale
                    + " terminal transitions under a token older than the row's newest claim)");
        }
        int auditFence = audit(dev.leasebox.chaos.evidence.AuditChecker.FENCE_REGRESSION);
        if (auditFence > 0) {
            broken.add("fences only grow per row, from the audit (" + auditFence + " regressions)");
        }
        int unreceived = audit(dev.leasebox.chaos.evidence.AuditChecker.DELIVERED_UNRECEIVED);
        if (unreceived > 0) {
            broken.add("received before marked delivered, from the audit and the deliveries (" + unreceived + " rows)");
        }
        int excess = audit(dev.leasebox.chaos.evidence.SwitchBound.EXCESS);
        if (excess > 0) {
            broken.add(dev.leasebox.chaos.evidence.SwitchBound.MEANING + " (" + excess + " ["
                    + dev.leasebox.chaos.evidence.SwitchBound.EXCESS + "])");
        }
        dev.leasebox.chaos.evidence.DeliveryChecker.ALL.forEach(kind -> {
            int n = audit(kind);
            if (n > 0) {
                broken.add(dev.leasebox.chaos.evidence.DeliveryChecker.MEANING.get(kind) + " (" + n + " [" + kind + "])");
            }
        });
        return broken;
    }
}
