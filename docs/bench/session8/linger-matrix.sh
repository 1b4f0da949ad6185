#!/bin/bash
# session 8: the candidate window of whole blocks (blocks2, commit 0ef4acb) against the same with
# Hazelcast row lock slots lingering 500 ms after their last row's release (linger), interleaved;
# Hazelcast against the database, the matrix, recorded claims
O=/work/main/docs/bench/session8
for i in 1 2; do
  for b in blocks2 linger; do
    echo "=== matrix $b $i $(date +%T) load $(cut -d' ' -f1 /proc/loadavg)"
    java -jar /tmp/ab/$b.jar bench --backends database,hazelcast --matrix --seconds 4 --warmup 5 --csv $O/linger-matrix-$b-$i.csv 2>&1 | grep -E "^database|^hazelcast|Checks|rror"
  done
done
echo "DONE $(date +%T)"
