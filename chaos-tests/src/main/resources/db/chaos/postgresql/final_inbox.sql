-- The downstream (jdbc-inbox provider) as the checker reads it after a run.
SELECT idempotency_key, entry_id, deliveries, last_fence FROM leasebox_inbox
