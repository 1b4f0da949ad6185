package dev.leasebox.chaos.evidence;

import dev.leasebox.chaos.history.Json;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One line of {@code deliveries.jsonl}: one delivery the downstream (the jdbc-inbox provider's table)
 * received, repeats included, with the fence as presented, the worker (the connection's application
 * name) and the time on the downstream's own clock (the database's {@code clock_timestamp()}).
 */
public record Delivery(long seq, String idempotencyKey, long entryId, Long fence, String worker, long txid,
                       long receivedMicros) {

    public String toJson() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("seq", seq);
        m.put("idempotencyKey", idempotencyKey);
        m.put("entry", entryId);
        m.put("fence", fence);
        m.put("worker", worker);
        m.put("txid", txid);
        m.put("receivedMicros", receivedMicros);
        return Json.object(m);
    }

    public static Delivery parse(String line) {
        Map<String, Object> m = Json.parseObject(line);
        return new Delivery(Evidence.required(m, "seq"), (String) m.get("idempotencyKey"), Evidence.required(m, "entry"),
                Evidence.optional(m, "fence"), (String) m.get("worker"), Evidence.required(m, "txid"),
                Evidence.required(m, "receivedMicros"));
    }
}
