#!/bin/bash
# session 8: the shipped build (final: own-stripe slots linger) against the same locking the next
# blocks of the worker's stripe ahead, in the background, after each grant (ahead); interleaved pairs,
# recorded claims, Hazelcast against the database
O=/work/main/docs/bench/session8
for cell in "4 100" "1 100" "4 100" "8 100" "4 100" "1 100"; do
  set -- $cell
  for b in final ahead; do
    echo "=== W=$1 B=$2 $b $(date +%T) load $(cut -d' ' -f1 /proc/loadavg)"
    java -jar /tmp/ab/$b.jar bench --backends database,hazelcast --workers $1 --batch $2 --seconds 8 --warmup 15 --csv $O/ahead-w$1b$2-$b-$(date +%H%M%S).csv 2>&1 | grep -E "^\[hazelcast W=$1 B=$2\] [0-9]|^hazelcast|Checks|rror"
  done
done
echo "DONE $(date +%T)"
