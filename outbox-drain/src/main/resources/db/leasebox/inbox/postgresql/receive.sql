-- One delivery: the first inserts (taking first_seq from the sequence), repeats only count.
-- nextval is spent on a repeat too, but first_seq keeps the first insert's value.
INSERT INTO leasebox_inbox (idempotency_key, entry_id, partition_key, deliveries, last_fence, first_seq)
VALUES (?, ?, ?, 1, ?, nextval('leasebox_inbox_seq'))
ON CONFLICT (idempotency_key) DO UPDATE
   SET deliveries = leasebox_inbox.deliveries + 1,
       last_fence = GREATEST(leasebox_inbox.last_fence, EXCLUDED.last_fence)
