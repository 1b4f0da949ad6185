-- The rows under a recorded claim, live or past its expiry, for the console's tally of lease losses and
-- reclaims. Bounded: a drain holds at most concurrency x batch claims, so 10,000 is far above normal.
-- ?1 = now (the console's clock)
SELECT id, claim_token, attempt_count, CASE WHEN claim_expires_at > ? THEN 1 ELSE 0 END AS live
  FROM ${table}
 WHERE claim_token IS NOT NULL
 ORDER BY id
 LIMIT 10000
