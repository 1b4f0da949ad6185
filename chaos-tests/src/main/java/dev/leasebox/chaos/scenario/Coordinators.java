package dev.leasebox.chaos.scenario;

import dev.leasebox.chaos.harness.Coordinator;
import dev.leasebox.chaos.harness.DatabaseCoordinator;
import dev.leasebox.chaos.harness.HazelcastCoordinator;
import dev.leasebox.chaos.harness.RedisCoordinator;
import dev.leasebox.chaos.harness.ZooKeeperCoordinator;
import dev.leasebox.lease.spi.LeaseBackends;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/** The backends a chaos run can use here, and their servers. */
public final class Coordinators {

    private Coordinators() {
    }

    /** {@code database} and every external backend on the class path whose server the harness can run. */
    public static List<String> available() {
        List<String> names = new ArrayList<>(List.of("database"));
        Set<String> onClassPath = LeaseBackends.available().keySet();
        for (String name : List.of("redis", "zookeeper", "hazelcast")) {
            if (onClassPath.contains(name) && ("zookeeper".equals(name) ? ZooKeeperCoordinator.available() : true)) {
                names.add(name);
            }
        }
        return names;
    }

    /** Starts {@code backend}'s servers (real processes on free loopback ports) for one run. */
    public static Coordinator start(String backend, Path runDir) {
        return start(backend, runDir, "");
    }

    /** As {@link #start(String, Path)}; {@code coordinator-failover} on redis gets a primary, a replica and a proxy. */
    public static Coordinator start(String backend, Path runDir, String scenario) {
        if ("redis".equals(backend) && "coordinator-failover".equals(scenario)) {
            return RedisCoordinator.startWithReplica(runDir);
        }
        return switch (backend) {
            case "database" -> new DatabaseCoordinator();
            case "redis" -> RedisCoordinator.start(runDir);
            case "zookeeper" -> ZooKeeperCoordinator.start(runDir);
            case "hazelcast" -> HazelcastCoordinator.start(runDir);
            default -> throw new IllegalArgumentException("unknown --backend '" + backend + "': choose one of " + available());
        };
    }
}
