#!/bin/bash
# interleaved: 4,096 slots (shipped default) / 1,024 slots / 4,096 slots with the embedded members' JMX and MC metrics off
for i in 1 2; do
  for v in s4096 s1024 nometrics; do
    jar=/tmp/ab/after.jar; opts=""
    [ $v = s1024 ] && jar=/tmp/ab/slots1024.jar
    [ $v = nometrics ] && opts="-Dhazelcast.metrics.jmx.enabled=false -Dhazelcast.metrics.mc.enabled=false"
    echo "=== round $i $v $(date +%T)"
    java $opts -jar $jar bench --backends database,hazelcast --workers 4 --batch 100 --seconds 8 --warmup 15 --csv /tmp/ab/$v-$i.csv 2>&1 | grep -E "^\[hazelcast|^database|^hazelcast"
  done
done
echo DONE
