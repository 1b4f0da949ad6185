package dev.leasebox.chaos.evidence;

import dev.leasebox.chaos.history.Json;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One line of {@code audit.jsonl}: a committed change of an outbox row's status, claim token, claim
 * owner, claim expiry or fence high-water mark, as the harness's trigger recorded it in the changing
 * transaction. {@code seq} orders the changes of one row as they committed; {@code atMicros} is the
 * database's {@code clock_timestamp()}. Nullable columns are {@code null} when the row had no value.
 */
public record AuditRecord(long seq, long entryId, long txid, long atMicros, String oldStatus, String newStatus,
                          Long oldClaimToken, Long newClaimToken, String oldClaimOwner, String newClaimOwner,
                          Long oldExpiresMicros, Long newExpiresMicros, Long oldFenceHighWater, Long newFenceHighWater) {

    public String toJson() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("seq", seq);
        m.put("entry", entryId);
        m.put("txid", txid);
        m.put("atMicros", atMicros);
        m.put("oldStatus", oldStatus);
        m.put("newStatus", newStatus);
        m.put("oldClaimToken", oldClaimToken);
        m.put("newClaimToken", newClaimToken);
        m.put("oldClaimOwner", oldClaimOwner);
        m.put("newClaimOwner", newClaimOwner);
        m.put("oldExpiresMicros", oldExpiresMicros);
        m.put("newExpiresMicros", newExpiresMicros);
        m.put("oldFenceHighWater", oldFenceHighWater);
        m.put("newFenceHighWater", newFenceHighWater);
        return Json.object(m);
    }

    public static AuditRecord parse(String line) {
        Map<String, Object> m = Json.parseObject(line);
        return new AuditRecord(Evidence.required(m, "seq"), Evidence.required(m, "entry"), Evidence.required(m, "txid"),
                Evidence.required(m, "atMicros"), (String) m.get("oldStatus"), (String) m.get("newStatus"),
                Evidence.optional(m, "oldClaimToken"), Evidence.optional(m, "newClaimToken"),
                (String) m.get("oldClaimOwner"), (String) m.get("newClaimOwner"),
                Evidence.optional(m, "oldExpiresMicros"), Evidence.optional(m, "newExpiresMicros"),
                Evidence.optional(m, "oldFenceHighWater"), Evidence.optional(m, "newFenceHighWater"));
    }
}
