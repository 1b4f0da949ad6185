#!/bin/bash
# interleaved A/B: before.jar vs after.jar, W=4 B=100, database+hazelcast
for i in 1 2 3; do
  for v in before after; do
    echo "=== pair $i $v $(date +%T)"
    java -jar /tmp/ab/$v.jar bench --backends database,hazelcast --workers 4 --batch 100 --seconds 8 --warmup 15 --csv /tmp/ab/$v-$i.csv 2>&1 | grep -v "^\s*$" | tail -12
  done
done
echo DONE
