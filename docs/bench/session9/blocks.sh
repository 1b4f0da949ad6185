#!/bin/bash
cd /tmp/s9
for r in 1 2 3; do
  for b in 64 128 256; do
    echo "== round $r block $b $(date +%T)"
    java -jar /tmp/ab/opt.jar bench --backends database,hazelcast --workers 4 --batch 100 --seconds 8 --warmup 15 \
      --backend-option hazelcast.rowLockBlock=$b --csv blocks-b$b-$r.csv 2>/dev/null | grep -E "^(database|hazelcast) " 
    grep -h "^hazelcast" blocks-b$b-$r.csv | awk -F, '{printf "ratio %s rows/claim %.1f\n", $5, $10/$11}'
    grep -h "^hazelcast" blocks-b$b-$r.csv | awk -F'"' '{print $(NF-1)}'
  done
done
echo DONE
