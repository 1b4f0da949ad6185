-- Which of a batch's keys are held now (unexpired by the caller's "now"): read only. A request
-- limited to fewer grants than keys reads this first, then acquires the first free keys up to its
-- limit; a key taken in between is simply not granted.
-- Parameters: keys text[], now.
SELECT lease_key
FROM ${table}_leases
WHERE lease_key = ANY (?::text[])
  AND expires_at > COALESCE(?::timestamptz, now())
