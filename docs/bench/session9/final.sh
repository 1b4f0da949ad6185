#!/bin/bash
cd /tmp/s9
J=/tmp/ab/s9.jar
for m in lean recorded lean; do
  echo "== W4 B100 $m $(date +%T)"
  java -jar $J bench --backends database,hazelcast --workers 4 --batch 100 --seconds 8 --warmup 15 --claim-mode $m --csv final-w4b100-$m-$(date +%H%M%S).csv 2>/dev/null | grep -E "^(database|hazelcast) "
done
echo "== W8 B100 recorded $(date +%T)"
java -jar $J bench --backends database,hazelcast --workers 8 --batch 100 --seconds 8 --warmup 15 --csv final-w8b100-recorded.csv 2>/dev/null | grep -E "^(database|hazelcast) "
echo "== failover $(date +%T)"
java -jar $J bench --failover --backends hazelcast --failover-rounds 3 --lease-ttl 5 --csv final-failover-hazelcast-ttl5.csv 2>&1 | tail -8
echo DONE $(date +%T)
