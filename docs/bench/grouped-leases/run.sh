#!/usr/bin/env bash
# W=4 B=100 recorded: main's jar (265a405) and this branch's, interleaved; then per-row vs grouped on Redis and ZooKeeper.
set -u
cd /tmp/grouped-bench
B="bench --workers 4 --batch 100 --seconds 8 --warmup 15"
for r in 1 2 3; do
  echo "=== round $r before (265a405) load $(cut -d' ' -f1 /proc/loadavg)"
  java -jar /tmp/leasebox-before.jar $B --backends database,hazelcast --csv before-hz-$r.csv 2>/dev/null | grep -E "^(database|hazelcast) |rows/s"
  echo "=== round $r after (grouped) load $(cut -d' ' -f1 /proc/loadavg)"
  java -jar /tmp/leasebox-after.jar $B --backends database,hazelcast --csv after-hz-$r.csv 2>/dev/null | grep -E "^(database|hazelcast) |rows/s"
done
for r in 1 2; do
  echo "=== round $r redis/zookeeper per row load $(cut -d' ' -f1 /proc/loadavg)"
  java -jar /tmp/leasebox-after.jar $B --backends database,redis,zookeeper --csv perrow-$r.csv 2>/dev/null | grep -E "^(database|redis|zookeeper) |rows/s"
  echo "=== round $r redis/zookeeper grouped load $(cut -d' ' -f1 /proc/loadavg)"
  java -jar /tmp/leasebox-after.jar $B --backends database,redis,zookeeper --backend-option redis.rowLockBlock=128 \
    --backend-option zookeeper.rowLockBlock=128 --csv grouped-$r.csv 2>/dev/null | grep -E "^(database|redis|zookeeper) |rows/s"
done
echo "=== done"
