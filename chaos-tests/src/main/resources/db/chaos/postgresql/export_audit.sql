-- chaos_audit for audit.jsonl, in seq order; times as epoch microseconds of the database's clock.
SELECT seq, entry_id, txid, (extract(epoch FROM at) * 1000000)::bigint AS at_micros, old_status, new_status,
       old_claim_token, new_claim_token, old_claim_owner, new_claim_owner,
       (extract(epoch FROM old_claim_expires_at) * 1000000)::bigint AS old_expires_micros,
       (extract(epoch FROM new_claim_expires_at) * 1000000)::bigint AS new_expires_micros,
       old_fence_high_water, new_fence_high_water
FROM ${schema}.chaos_audit
ORDER BY seq
