#!/bin/bash
# session 8: the shipped build of session 7 (base) against a candidate window that holds whole blocks
# of every stripe and helpers that take other stripes' rows a block at a time (blocks), interleaved;
# Hazelcast against the database, the matrix, recorded claims
O=/work/main/docs/bench/session8
for i in 1 2; do
  for b in base blocks; do
    echo "=== matrix $b $i $(date +%T) load $(cut -d' ' -f1 /proc/loadavg)"
    java -jar /tmp/ab/$b.jar bench --backends database,hazelcast --matrix --seconds 4 --warmup 5 --csv $O/window-blocks-matrix-$b-$i.csv 2>&1 | grep -E "^database|^hazelcast|Checks|rror"
  done
done
echo "DONE $(date +%T)"
