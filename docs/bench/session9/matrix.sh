#!/bin/bash
cd /tmp/s9
while pgrep -f blocks.sh >/dev/null; do sleep 5; done
for r in 1 2; do
  for b in 64 128 256; do
    echo "== matrix round $r block $b $(date +%T)"
    java -jar /tmp/ab/opt.jar bench --backends database,hazelcast --matrix --seconds 4 --warmup 5 \
      --backend-option hazelcast.rowLockBlock=$b --csv matrix-b$b-$r.csv 2>/dev/null | grep -E "^(database|hazelcast) |Checks|CHECK"
  done
done
echo DONE
