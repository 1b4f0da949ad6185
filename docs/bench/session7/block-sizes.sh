#!/bin/bash
# interleaved: row lock blocks of 16 (blocks.jar), 64 and 256 rows, W=4 B=100
for i in 1 2; do
  for v in blocks blocks64 blocks256; do
    echo "=== round $i $v $(date +%T)"
    java -jar /tmp/ab/$v.jar bench --backends database,hazelcast --workers 4 --batch 100 --seconds 8 --warmup 15 --csv /tmp/ab/k-$v-$i.csv 2>&1 | grep -E "^\[hazelcast W=4 B=100\] [0-9]|^database|^hazelcast|Checks|rror"
  done
done
echo DONE
