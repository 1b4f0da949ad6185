-- The non-claiming path's unconditional write of emission state; claim and fence columns untouched.
-- Parameters: status, attempt_count, next_attempt_at, delivered_at, last_error, dead_letter_reason, id.
SELECT * FROM FINAL TABLE (
    UPDATE ${table}
    SET status = ?, attempt_count = ?, next_attempt_at = ?, delivered_at = ?, last_error = ?, dead_letter_reason = ?
    WHERE id = ?
)
