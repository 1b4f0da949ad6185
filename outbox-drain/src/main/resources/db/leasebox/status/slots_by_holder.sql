-- Partition leases (V3): how many slots each worker's newest grant covers, when it last took one,
-- and whether that worker is alive by its heartbeat. ?1 = now (the reporting worker's clock).
SELECT s.holder,
       count(*) AS slots,
       max(s.granted_at) AS last_granted,
       max(CASE WHEN w.expires_at > ? THEN 1 ELSE 0 END) AS alive
  FROM ${table}_lease_slots s
  LEFT JOIN ${table}_workers w ON w.owner = s.holder
 GROUP BY s.holder
 ORDER BY s.holder
