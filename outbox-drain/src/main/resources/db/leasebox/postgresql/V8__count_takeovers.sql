-- Claims taken over, counted in the table so that any console reading it sees them (decision 0046). A
-- claim takes a row over when an earlier claim on it expired unfinished (its holder died, stalled or lost
-- its lease, and may have emitted the row). Workers count their takeovers as they claim and add them to
-- the claim-style registry's guard row (owner '') in the heartbeat transaction that already locks it, soon
-- after a takeover and when they stop: the guard row's taken_over is the table's cumulative count, since
-- this script was applied. The claim statements do not change.
-- Placeholders: ${table}, ${table_name} as in V1.
ALTER TABLE ${table}_claim_styles ADD COLUMN taken_over bigint NOT NULL DEFAULT 0;
