-- One delivery: the first inserts (taking first_seq from the sequence), repeats only count.
MERGE INTO leasebox_inbox AS t
USING (VALUES (CAST(? AS varchar(200)), CAST(? AS bigint), CAST(? AS varchar(200)), CAST(? AS bigint)))
      AS s (idempotency_key, entry_id, partition_key, fence)
   ON t.idempotency_key = s.idempotency_key
WHEN MATCHED THEN UPDATE SET deliveries = t.deliveries + 1, last_fence = GREATEST(t.last_fence, s.fence)
WHEN NOT MATCHED THEN INSERT (idempotency_key, entry_id, partition_key, deliveries, last_fence, first_seq)
     VALUES (s.idempotency_key, s.entry_id, s.partition_key, 1, s.fence, NEXT VALUE FOR leasebox_inbox_seq)
