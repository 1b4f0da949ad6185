-- The downstream (jdbc-inbox provider) as the checker reads it after a run. first_seq: the order of
-- first deliveries (a sequence value taken by each key's first insert; repeats keep it).
SELECT idempotency_key, entry_id, deliveries, last_fence, first_seq FROM leasebox_inbox
