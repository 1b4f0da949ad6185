-- Lean partition claims, the read (also the candidate read of recorded ones): eligible rows of the
-- caller's slots, oldest first, excluding rows under an unexpired recorded claim and the caller's own
-- rows in flight. Nothing is written: the slot lease is the claim, and the gate is at completion
-- (slot_complete.sql).
-- MariaDB has no partial index, and lease_slot is a virtual column without one: as in
-- select_eligible.sql, each of the three bound statuses is read from the (status, id) index in id
-- order, keeping rows of the caller's slots, at most "limit" each, and the union is cut to the oldest
-- "limit". The key_order placeholder is empty, or (ordered mode) the filter of slot_key_order.sql;
-- not_in_flight is empty, or "AND o.id NOT IN (?, …)" with one "?" per id in flight.
-- Parameters, once per status: status, the slots (${slots}), now (due), now (claim expiry), the ids in
-- flight, limit; then limit.
SELECT t.* FROM (
    (SELECT o.id FROM ${table} AS o
     WHERE o.status = ? AND o.status IN ('PENDING', 'DEFERRED', 'RETRYABLE_FAILURE')
       AND o.lease_slot IN (${slots})
       AND (o.next_attempt_at IS NULL OR o.next_attempt_at <= COALESCE(?, UTC_TIMESTAMP(6)))
       AND (o.claim_expires_at IS NULL OR o.claim_expires_at <= COALESCE(?, UTC_TIMESTAMP(6)))
       ${not_in_flight}
       ${key_order}
     ORDER BY o.id LIMIT ?)
    UNION
    (SELECT o.id FROM ${table} AS o
     WHERE o.status = ? AND o.status IN ('PENDING', 'DEFERRED', 'RETRYABLE_FAILURE')
       AND o.lease_slot IN (${slots})
       AND (o.next_attempt_at IS NULL OR o.next_attempt_at <= COALESCE(?, UTC_TIMESTAMP(6)))
       AND (o.claim_expires_at IS NULL OR o.claim_expires_at <= COALESCE(?, UTC_TIMESTAMP(6)))
       ${not_in_flight}
       ${key_order}
     ORDER BY o.id LIMIT ?)
    UNION
    (SELECT o.id FROM ${table} AS o
     WHERE o.status = ? AND o.status IN ('PENDING', 'DEFERRED', 'RETRYABLE_FAILURE')
       AND o.lease_slot IN (${slots})
       AND (o.next_attempt_at IS NULL OR o.next_attempt_at <= COALESCE(?, UTC_TIMESTAMP(6)))
       AND (o.claim_expires_at IS NULL OR o.claim_expires_at <= COALESCE(?, UTC_TIMESTAMP(6)))
       ${not_in_flight}
       ${key_order}
     ORDER BY o.id LIMIT ?)
    ORDER BY id LIMIT ?) AS c
JOIN ${table} AS t ON t.id = c.id
ORDER BY t.id
