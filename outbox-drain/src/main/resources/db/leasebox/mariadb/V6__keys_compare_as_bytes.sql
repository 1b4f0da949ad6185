-- Keys compare byte for byte (MariaDB). utf8mb4_bin, which V1 to V4 create the tables with, is a PAD
-- SPACE collation: 'k' and 'k ' compare equal there, so an idempotency key with a trailing space would
-- collide with another in the unique index, and two partition or lease keys would be taken for one.
-- utf8mb4_nopad_bin compares the bytes as they are. Converting only refines equality, so no existing
-- row can collide. Each statement rebuilds its table (the outbox's as long as a copy of it takes,
-- writers waiting): apply it when the outbox is small or traffic low. Every statement can run again
-- after an interrupted apply; the script counts as applied when every text column of the five tables
-- has the NO PAD collation.
-- Placeholders: ${table} as in V1.
ALTER TABLE ${table} CONVERT TO CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin;
ALTER TABLE ${table}_lease_slots CONVERT TO CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin;
ALTER TABLE ${table}_workers CONVERT TO CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin;
ALTER TABLE ${table}_leases CONVERT TO CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin;
ALTER TABLE ${table}_claim_styles CONVERT TO CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin;
