#!/usr/bin/env bash
# leasebox worker (database backend) draining 200,000 pre-seeded rows, interleaved with the bench's
# baseline draining the same backlog; three rounds. Rates: rows / (last delivered_at - first delivered_at).
set -euo pipefail
JAR=${JAR:-leasebox-dist/target/leasebox.jar}
URL="jdbc:postgresql://127.0.0.1:5432/test?user=postgres"
PSQL="psql -h 127.0.0.1 -U postgres test -qAt"
ROWS=${ROWS:-200000}
for round in 1 2 3; do
  $PSQL -c "DROP SCHEMA IF EXISTS speed_worker CASCADE" -c "CREATE SCHEMA speed_worker"
  java -jar "$JAR" schema --apply --jdbc-url "$URL" --table speed_worker.leasebox_outbox > /dev/null
  $PSQL -c "INSERT INTO speed_worker.leasebox_outbox (idempotency_key, type, payload, headers, status, attempt_count, created_at)
            SELECT 'w-' || g, 'leasebox.bench', convert_to(rpad('{\"seq\":' || g || '}', 200), 'UTF8'), '{}', 'PENDING', 0, now()
            FROM generate_series(1, $ROWS) AS g" -c "VACUUM ANALYZE speed_worker.leasebox_outbox"
  start=$(date +%s.%N)
  java -jar "$JAR" worker --backend database --concurrency 4 --batch 100 --provider noop --exit-when-idle \
       --jdbc-url "$URL" --table speed_worker.leasebox_outbox > ${OUT:-.}/worker-$round.log 2>&1
  end=$(date +%s.%N)
  rate=$($PSQL -c "SELECT round(count(*) / extract(epoch FROM max(delivered_at) - min(delivered_at))) FROM speed_worker.leasebox_outbox WHERE status = 'DELIVERED'")
  hot=$($PSQL -c "SELECT n_tup_upd || ' updates, ' || n_tup_hot_upd || ' HOT' FROM pg_stat_user_tables WHERE relid = 'speed_worker.leasebox_outbox'::regclass")
  left=$($PSQL -c "SELECT count(*) FROM speed_worker.leasebox_outbox WHERE status <> 'DELIVERED'")
  echo "round $round worker: $rate rows/s (process $(echo "$end - $start" | bc) s, $left rows not delivered, $hot)"
  java -jar "$JAR" bench --backends baseline --modes backlog --backlog "$ROWS" --history 0 --workers 4 --batch 100 \
       --csv ${OUT:-.}/worker-baseline-$round.csv > ${OUT:-.}/worker-baseline-$round.log 2>&1
  echo "round $round baseline: $(grep -E '^baseline ' ${OUT:-.}/worker-baseline-$round.log | awk '{print $8}') rows/s"
done
$PSQL -c "DROP SCHEMA IF EXISTS speed_worker CASCADE"
