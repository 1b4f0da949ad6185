package dev.leasebox.chaos.evidence;

import dev.leasebox.chaos.check.CheckResult;
import dev.leasebox.chaos.check.FinalState;
import dev.leasebox.chaos.check.HistoryChecker;
import dev.leasebox.chaos.history.FaultEvent;
import dev.leasebox.chaos.history.HistoryEvent;
import dev.leasebox.chaos.history.Json;
import dev.leasebox.chaos.history.JsonLinesFile;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Re-judges a report directory from its files alone ({@code leasebox chaos check DIR}): the rules from
 * {@code summary.json} (granularity, ordering, claim mode), the histories ({@code history-*.jsonl}),
 * {@code faults.jsonl}, {@code final.jsonl} and, when present, {@code audit.jsonl} and {@code deliveries.jsonl}. No server is needed.
 */
public final class ReportCheck {

    /** Every invariant held. */
    public static final int HELD = 0;
    /** One broke. */
    public static final int BROKE = 1;
    /** The directory could not be judged (a file missing or unreadable). */
    public static final int COULD_NOT_CHECK = 2;

    /**
     * @param exitCode {@link #HELD}, {@link #BROKE} or {@link #COULD_NOT_CHECK}
     * @param result   the checker's result; null when it could not check
     * @param error    why it could not check; empty otherwise
     * @param audited  whether an audit was judged
     */
    public record Outcome(int exitCode, CheckResult result, String error, boolean audited) {
    }

    private ReportCheck() {
    }

    public static Outcome check(Path dir) {
        try {
            if (!Files.isDirectory(dir)) {
                throw new IllegalArgumentException(dir + " is not a directory");
            }
            Map<String, Object> summary = summary(dir);
            boolean partition = "partition".equals(summary.get("leaseGranularity"));
            boolean ordered = Boolean.TRUE.equals(summary.get("ordered"));
            boolean lean = "lean".equals(summary.get("claimMode"));
            boolean leanPartition = partition && "lean".equals(summary.get("partitionClaims"));
            java.util.Set<String> switched = switchedWorkers(summary);
            HistoryChecker.Rules rules = switched.isEmpty() ? new HistoryChecker.Rules(ordered, leanPartition, !partition && lean)
                    : HistoryChecker.Rules.switchedToLeanPartitions(switched);
            List<HistoryEvent> history = new ArrayList<>();
            List<Path> files = histories(dir);
            if (files.isEmpty()) {
                throw new IllegalArgumentException("no history-*.jsonl in " + dir);
            }
            for (Path f : files) {
                history.addAll(JsonLinesFile.read(f, HistoryEvent::parse));
            }
            Path faultsFile = dir.resolve("faults.jsonl");
            if (!Files.isRegularFile(faultsFile)) {
                throw new IllegalArgumentException("missing " + faultsFile);
            }
            List<FaultEvent> faults = JsonLinesFile.read(faultsFile, FaultEvent::parse);
            FinalState end = Evidence.readFinal(dir);
            CheckResult result = HistoryChecker.check(history, faults, end, rules);
            boolean audited = Files.exists(dir.resolve(Evidence.AUDIT));
            if (audited) {
                List<Delivery> deliveries = Files.exists(dir.resolve(Evidence.DELIVERIES)) ? Evidence.readDeliveries(dir) : null;
                List<AuditRecord> audit = Evidence.readAudit(dir);
                result = result.withAudit(AuditChecker.check(audit, deliveries, !lean));
                if (deliveries != null) {
                    result = result.withAudit(DeliveryChecker.check(audit, deliveries, faults, end,
                            DeliveryChecker.Mode.of(String.valueOf(summary.get("backend")), lean, !partition && lean)
                                    .withReceiptResolution("kafka".equals(summary.get("downstream")) ? 1_000 : 0)
                                    .switchedTo(switched),
                            DeliveryChecker.lossesReported(history)))
                            .withAudit(SwitchBound.check(deliveries, switched, dev.leasebox.chaos.harness.WorkerProcess.BATCH));
                }
            }
            return new Outcome(result.passed() ? HELD : BROKE, result, "", audited);
        } catch (RuntimeException e) { // a missing file, a line that does not parse, a field of the wrong type
            return new Outcome(COULD_NOT_CHECK, null, String.valueOf(e.getMessage()), false);
        }
    }

    /** The workers that replaced the run's fleet with lean partition claims ({@code switchedWorkers}), if any. */
    private static java.util.Set<String> switchedWorkers(Map<String, Object> summary) {
        Object named = summary.get("switchedWorkers");
        if (named == null || named.toString().isBlank()) {
            return java.util.Set.of();
        }
        return java.util.Set.of(named.toString().split(","));
    }

    private static Map<String, Object> summary(Path dir) {
        Path file = dir.resolve("summary.json");
        if (!Files.isRegularFile(file)) {
            throw new IllegalArgumentException("missing " + file + " (it names the run's rules)");
        }
        try {
            return Json.parseObject(Files.readString(file, StandardCharsets.UTF_8).trim());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file + ": " + e.getMessage(), e);
        }
    }

    private static List<Path> histories(Path dir) {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> {
                String n = p.getFileName().toString();
                return n.startsWith("history-") && n.endsWith(".jsonl");
            }).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + dir + ": " + e.getMessage(), e);
        }
    }
}
