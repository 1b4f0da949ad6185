-- V3's lease slots (inserted by one statement; an interrupted apply may not have committed it).
SELECT COUNT(*) FROM ${table}_lease_slots
