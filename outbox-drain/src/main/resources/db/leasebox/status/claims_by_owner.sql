-- ?1 = now (the reporting worker's clock)
SELECT claim_owner,
       sum(CASE WHEN claim_expires_at > ? THEN 1 ELSE 0 END) AS active,
       sum(CASE WHEN claim_expires_at > ? THEN 0 ELSE 1 END) AS expired
  FROM ${table}
 WHERE claim_token IS NOT NULL
 GROUP BY claim_owner
 ORDER BY claim_owner
