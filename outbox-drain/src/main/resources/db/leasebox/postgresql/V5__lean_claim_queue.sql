-- The claim path's writes as HOT updates and its reads independent of the table's statistics.
-- Placeholders: ${table}, ${table_name} as in V1.
--
-- A claim writes only claim columns (claim_owner, claimed_at, claim_expires_at, claim_token,
-- claim_attempt_count, fence_high_water). PostgreSQL can make such an update HOT (no new entry in any
-- index, the new row version on the same page) only when no index of the table mentions a column the
-- update changes, in its key, its INCLUDE list or its predicate, and only when the page has room for
-- the new version. V2's claim-candidate index INCLUDEd claim_expires_at (and status and
-- next_attempt_at), so every claim inserted into all five indexes of the table.
--
-- 1. The candidate index is replaced by one keyed by id alone, with the same predicate: nothing a
--    claim writes is in it, and a finalized row (DELIVERED, DEAD_LETTERED, FAILED) still leaves it.
--    The claim statements find their rows through it in id order and judge due-ness and claims on the
--    row itself (the rows at the head of the queue are never all-visible, so the INCLUDE list never
--    saved a heap visit there).
-- 2. fillfactor 50: rows are inserted into half-full pages, so that a claim batch, which claims
--    neighbouring rows of a page at once, finds room for every claimed version on the same page. It
--    applies to pages written from now on; existing rows keep their pages (VACUUM FULL or
--    pg_repack rewrite them, where wanted).
--
-- Completions still change status and so are not HOT: that is what takes a finalized row out of the
-- partial indexes.
--
-- This script builds the new index under a lock that blocks writes to the table while it runs. On a
-- big outbox in use, run instead, outside a transaction (README, "Upgrading to V5"):
--   CREATE INDEX CONCURRENTLY <table>_claim_queue ON <schema>.<table> (id)
--       WHERE status IN ('PENDING', 'DEFERRED', 'RETRYABLE_FAILURE');
--   DROP INDEX CONCURRENTLY <schema>.<table>_claim_candidates;
--   ALTER TABLE <schema>.<table> SET (fillfactor = 50);
CREATE INDEX ${table_name}_claim_queue ON ${table} (id)
    WHERE status IN ('PENDING', 'DEFERRED', 'RETRYABLE_FAILURE');

-- ${table} is schema-qualified when the table is, and the index lives in the table's schema.
DROP INDEX ${table}_claim_candidates;

ALTER TABLE ${table} SET (fillfactor = 50);
