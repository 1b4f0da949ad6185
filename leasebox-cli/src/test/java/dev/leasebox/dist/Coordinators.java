package dev.leasebox.dist;

import dev.leasebox.testkit.LoopbackPorts;
import dev.leasebox.testkit.ManagedProcess;
import dev.leasebox.testkit.RequiredServer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Coordinators in processes of their own, started through the fleet (so they are stopped by pid with
 * it), each returning the worker arguments that reach it.
 */
final class Coordinators {

    private Coordinators() {
    }

    static List<String> database() {
        return List.of("--backend", "database");
    }

    static List<String> redis(WorkerFleet fleet, String namespace) {
        int port = LoopbackPorts.free();
        String redisServer = RequiredServer.binary("redis-server", "/usr/bin/redis-server")
                .orElseThrow(() -> RequiredServer.missing("redis-server", "PATH", "apt-get install redis-server")).toString();
        fleet.adopt(ManagedProcess.start("redis", List.of(redisServer, "--port", Integer.toString(port),
                "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"))).awaitListening(port, Duration.ofSeconds(20));
        return List.of("--backend", "redis", "--redis", "redis://127.0.0.1:" + port, "--namespace", namespace);
    }

    static List<String> zooKeeper(WorkerFleet fleet) {
        int port = LoopbackPorts.free();
        fleet.start("zookeeper", List.of("zookeeper-server", "--port", Integer.toString(port)))
                .awaitListening(port, Duration.ofSeconds(60));
        return List.of("--backend", "zookeeper", "--zookeeper", "127.0.0.1:" + port, "--backend-option", "session-timeout=6s");
    }

    /** Three CP members; workers must use a lease ttl of at most 5 s with the 10 s session ttl given here. */
    static List<String> hazelcast(WorkerFleet fleet, String clusterName) {
        List<Integer> ports = List.of(LoopbackPorts.free(), LoopbackPorts.free(), LoopbackPorts.free());
        String members = String.join(",", ports.stream().map(p -> "127.0.0.1:" + p).toList());
        List<ManagedProcess> started = new ArrayList<>();
        for (int port : ports) {
            started.add(fleet.start("hazelcast-" + port, List.of("hazelcast-member", "--port", Integer.toString(port),
                    "--members", members, "--cluster-name", clusterName)));
        }
        for (int i = 0; i < ports.size(); i++) {
            started.get(i).awaitListening(ports.get(i), Duration.ofSeconds(90));
        }
        return List.of("--backend", "hazelcast", "--hazelcast", members, "--backend-option", "cluster-name=" + clusterName,
                "--backend-option", "session-ttl=10s", "--backend-option", "heartbeat=1s");
    }
}
