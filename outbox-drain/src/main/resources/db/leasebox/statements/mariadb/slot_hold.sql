-- The first statement of a claim or completion in slots: share-locks the caller's slot rows until
-- the transaction ends and returns their recorded newest fences. Only slots whose fence is the
-- caller's grant's go on; a newer grant's registration (slot_register.sql) waits for this
-- transaction, and every later claim or completion under the older grant finds a different fence.
-- PostgreSQL does the same inside one statement (FOR SHARE OF s). READ COMMITTED: only these rows are
-- locked, found by primary key.
-- Parameters: the slots (${slots}, one "?" each).
SELECT slot, fence_high_water FROM ${table}_lease_slots
WHERE slot IN (${slots})
LOCK IN SHARE MODE
