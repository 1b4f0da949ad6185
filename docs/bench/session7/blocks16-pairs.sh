#!/bin/bash
# interleaved: lock proxies kept (after.jar) vs. rows granted in blocks of 16 (blocks.jar), W=4 B=100
for i in 1 2; do
  for v in after blocks; do
    echo "=== pair $i $v $(date +%T)"
    java -jar /tmp/ab/$v.jar bench --backends database,hazelcast --workers 4 --batch 100 --seconds 8 --warmup 15 --csv /tmp/ab/b-$v-$i.csv 2>&1 | grep -E "^\[hazelcast W=4 B=100\] [0-9]|^database|^hazelcast|Checks|rror"
  done
done
echo DONE
