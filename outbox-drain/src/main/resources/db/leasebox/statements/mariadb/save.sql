-- The non-claiming path's unconditional write of emission state; claim and fence columns untouched.
-- The row is read back with find_by_id.sql. Parameters: status, attempt_count, next_attempt_at,
-- delivered_at, last_error, dead_letter_reason, id.
UPDATE ${table}
SET status = ?, attempt_count = ?, next_attempt_at = ?, delivered_at = ?, last_error = ?, dead_letter_reason = ?
WHERE id = ?
