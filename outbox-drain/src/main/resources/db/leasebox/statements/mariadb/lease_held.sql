-- Which of a batch's keys are held now (unexpired by the caller's "now"): read only.
-- ${keys} is one "?" per key. Parameters: the keys, now.
SELECT lease_key
FROM ${table}_leases
WHERE lease_key IN (${keys})
  AND expires_at > COALESCE(?, UTC_TIMESTAMP(6))
