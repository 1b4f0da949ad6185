#!/bin/bash
# session 8, the shipped build (candidate window of whole blocks, helpers take blocks, own-stripe
# row lock slots linger 500 ms): Hazelcast against the database
J=/tmp/ab/final.jar
O=/work/main/docs/bench/session8
for i in 1 2 3; do
  for mode in recorded lean; do
    echo "=== w4b100 $mode $i $(date +%T) load $(cut -d' ' -f1 /proc/loadavg)"
    java -jar $J bench --backends database,hazelcast --workers 4 --batch 100 --seconds 8 --warmup 15 --claim-mode $mode --csv $O/w4b100-$mode-$i.csv 2>&1 | grep -E "^\[hazelcast W=4 B=100\] [0-9]|^database|^hazelcast|Checks|rror"
  done
done
echo "=== w8b100 recorded $(date +%T)"
java -jar $J bench --backends database,hazelcast --workers 8 --batch 100 --seconds 8 --warmup 15 --csv $O/w8b100-recorded.csv 2>&1 | grep -E "^\[hazelcast W=8 B=100\] [0-9]|^database|^hazelcast|Checks|rror"
echo "=== matrix lean $(date +%T)"
java -jar $J bench --backends database,hazelcast --matrix --seconds 4 --warmup 5 --claim-mode lean --csv $O/matrix-hazelcast-lean.csv 2>&1 | grep -E "^database|^hazelcast|Checks|chart|rror"
echo "=== failover $(date +%T)"
java -jar $J bench --failover --backends hazelcast --failover-rounds 3 --lease-ttl 5 --csv $O/failover-hazelcast-ttl5.csv 2>&1 | grep -E "failover hazelcast round [0-9]\] [0-9]+ orphans|^hazelcast|target|rror"
echo "DONE $(date +%T)"
