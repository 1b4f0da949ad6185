-- Lets the current transaction commit without waiting for its WAL to reach disk (claim records only,
-- when the store is built with durableClaimRecords(false)). A crash may then lose the last claim
-- records: a lost record costs visibility and at most a duplicate emission, never a stale accepted
-- write, since every completion is checked against the token the row actually carries.
SET LOCAL synchronous_commit = off
