-- One delivery: the first inserts (taking first_seq from the sequence), repeats only count.
-- NEXTVAL is spent on a repeat too, but first_seq keeps the first insert's value. MariaDB's GREATEST
-- is NULL when either side is, hence the COALESCEs (a delivery without a fence keeps the highest seen).
INSERT INTO leasebox_inbox (idempotency_key, entry_id, partition_key, deliveries, last_fence, first_seq)
VALUES (?, ?, ?, 1, ?, NEXTVAL(leasebox_inbox_seq))
ON DUPLICATE KEY UPDATE
   deliveries = deliveries + 1,
   last_fence = GREATEST(COALESCE(last_fence, VALUES(last_fence)), COALESCE(VALUES(last_fence), last_fence))
