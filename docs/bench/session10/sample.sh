#!/bin/bash
cd /tmp/s10
for r in 1 2 3; do
  for j in old new; do
    echo "== round $r $j W4 B100 $(date +%T)"
    java -jar /tmp/ab10/$j.jar bench --backends database,hazelcast --workers 4 --batch 100 --seconds 8 --warmup 15 \
      --csv sample-$j-w4b100-$r.csv 2>/dev/null | grep -E "^(database|hazelcast) "
    grep -h "^hazelcast" sample-$j-w4b100-$r.csv | awk -F, '{printf "ratio %s rows/claim %.1f\n", $5, $10/$11}'
  done
done
for r in 1 2; do
  for j in old new; do
    echo "== round $r $j W8 B10 $(date +%T)"
    java -jar /tmp/ab10/$j.jar bench --backends database,hazelcast --workers 8 --batch 10 --seconds 8 --warmup 15 \
      --csv sample-$j-w8b10-$r.csv 2>/dev/null | grep -E "^(database|hazelcast) "
    grep -h "^hazelcast" sample-$j-w8b10-$r.csv | awk -F, '{printf "ratio %s rows/claim %.1f\n", $5, $10/$11}'
  done
done
echo DONE $(date +%T)
