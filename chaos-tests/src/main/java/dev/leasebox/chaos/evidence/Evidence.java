package dev.leasebox.chaos.evidence;

import dev.leasebox.chaos.check.FinalState;
import dev.leasebox.chaos.history.Json;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The evidence files of a report directory that the workers do not write: {@code audit.jsonl},
 * {@code deliveries.jsonl} and {@code final.jsonl} (the outbox's final rows, {@code "table":"outbox"},
 * and the inbox's, {@code "table":"inbox"}: exactly the {@link FinalState} the checker judged).
 * The harness writes them in one go after the run, so unlike histories they are read strictly: a line
 * that does not parse is an error, not a torn write.
 */
public final class Evidence {

    public static final String AUDIT = "audit.jsonl";
    public static final String DELIVERIES = "deliveries.jsonl";
    public static final String FINAL = "final.jsonl";

    private Evidence() {
    }

    /** What a run's export wrote. */
    public record Exported(List<AuditRecord> audit, List<Delivery> deliveries) {
    }

    public static void writeAudit(Path dir, List<AuditRecord> audit) {
        write(dir.resolve(AUDIT), audit.stream().map(AuditRecord::toJson).toList());
    }

    public static void writeDeliveries(Path dir, List<Delivery> deliveries) {
        write(dir.resolve(DELIVERIES), deliveries.stream().map(Delivery::toJson).toList());
    }

    public static void writeFinal(Path dir, FinalState end) {
        List<String> lines = new ArrayList<>();
        for (FinalState.Row r : end.rows()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("table", "outbox");
            m.put("id", r.id());
            m.put("idempotencyKey", r.idempotencyKey());
            m.put("status", r.status());
            m.put("attemptCount", r.attemptCount());
            m.put("fenceHighWater", r.fenceHighWater());
            m.put("claimToken", r.claimToken());
            m.put("partitionKey", r.partitionKey());
            lines.add(Json.object(m));
        }
        end.inbox().values().stream().sorted(java.util.Comparator.comparing(FinalState.Received::idempotencyKey))
                .forEach(r -> {
                    Map<String, Object> m = new LinkedHashMap<>();
                    m.put("table", "inbox");
                    m.put("idempotencyKey", r.idempotencyKey());
                    m.put("entry", r.entryId());
                    m.put("deliveries", r.deliveries());
                    m.put("lastFence", r.lastFence());
                    m.put("firstSeq", r.firstSeq());
                    lines.add(Json.object(m));
                });
        write(dir.resolve(FINAL), lines);
    }

    public static List<AuditRecord> readAudit(Path dir) {
        return read(dir.resolve(AUDIT), AuditRecord::parse);
    }

    public static List<Delivery> readDeliveries(Path dir) {
        return read(dir.resolve(DELIVERIES), Delivery::parse);
    }

    public static FinalState readFinal(Path dir) {
        List<FinalState.Row> rows = new ArrayList<>();
        Map<String, FinalState.Received> inbox = new HashMap<>();
        for (Map<String, Object> m : read(dir.resolve(FINAL), Json::parseObject)) {
            Object table = m.get("table");
            if ("outbox".equals(table)) {
                rows.add(new FinalState.Row(required(m, "id"), (String) m.get("idempotencyKey"), (String) m.get("status"),
                        (int) required(m, "attemptCount"), required(m, "fenceHighWater"), required(m, "claimToken"),
                        (String) m.get("partitionKey")));
            } else if ("inbox".equals(table)) {
                String key = (String) m.get("idempotencyKey");
                inbox.put(key, new FinalState.Received(key, required(m, "entry"), (int) required(m, "deliveries"),
                        required(m, "lastFence"), required(m, "firstSeq")));
            } else {
                throw new IllegalArgumentException(FINAL + ": a line of unknown table " + table);
            }
        }
        return new FinalState(rows, inbox);
    }

    static long required(Map<String, Object> m, String key) {
        Object v = m.get(key);
        if (!(v instanceof Long l)) {
            throw new IllegalArgumentException("field " + key + " missing or not an integer in " + Json.object(m));
        }
        return l;
    }

    static Long optional(Map<String, Object> m, String key) {
        Object v = m.get(key);
        if (v != null && !(v instanceof Long)) {
            throw new IllegalArgumentException("field " + key + " not an integer in " + Json.object(m));
        }
        return (Long) v;
    }

    private static void write(Path file, List<String> lines) {
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            StringBuilder b = new StringBuilder();
            lines.forEach(l -> b.append(l).append('\n'));
            Files.writeString(file, b.toString(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
        }
    }

    /** Every line of {@code file}; a missing file or a line that does not parse is an {@link IllegalArgumentException}. */
    private static <T> List<T> read(Path file, Function<String, T> parser) {
        if (!Files.isRegularFile(file)) {
            throw new IllegalArgumentException("missing " + file);
        }
        List<T> out = new ArrayList<>();
        try {
            int n = 0;
            for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                n++;
                if (line.isBlank()) {
                    continue;
                }
                try {
                    out.add(parser.apply(line));
                } catch (RuntimeException e) {
                    throw new IllegalArgumentException(file + " line " + n + ": " + e.getMessage(), e);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file + ": " + e.getMessage(), e);
        }
        return out;
    }
}
