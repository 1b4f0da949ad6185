-- chaos_deliveries for deliveries.jsonl, in seq order; times as epoch microseconds of the database's clock.
SELECT seq, idempotency_key, entry_id, fence, worker, txid, (extract(epoch FROM received_at) * 1000000)::bigint AS received_micros
FROM ${schema}.chaos_deliveries
ORDER BY seq
