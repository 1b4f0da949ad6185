package dev.leasebox.chaos.harness;

import dev.leasebox.chaos.fault.FaultLog;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Where a run's leases live, as real server processes the harness started on free loopback ports
 * (or the outbox database itself for {@code database}). Implementations know how to take
 * themselves down and up again the way the coordinator-restart scenario needs.
 */
public interface Coordinator extends AutoCloseable {

    /** The backend name workers open ({@code database}, {@code redis}, {@code zookeeper}, {@code hazelcast}). */
    String backend();

    /** The address workers connect to (empty for {@code database}). */
    String address();

    /** Backend options workers pass (session timings matched to the servers). */
    Map<String, String> backendOptions();

    /** The TCP ports workers reach the coordinator on: what a partition cuts. Empty for {@code database}. */
    List<Integer> clientPorts();

    /**
     * How long the coordinator keeps a silent client's session, and with it the client's leases, alive: the
     * ZooKeeper session timeout, the Hazelcast CP session TTL. Empty where leases end with their own ttl
     * (Redis, the database).
     */
    default Optional<Duration> session() {
        return Optional.empty();
    }

    /**
     * Backend options that make a worker's calls to the coordinator give up within a second or two, for a
     * fault that cuts it off for less than its session: without them a call could wait the cut out and
     * succeed, and the paths that handle a failed call (a Hazelcast unlock that timed out) would never run.
     */
    default Map<String, String> quickTimeouts() {
        return Map.of();
    }

    /** Whether the coordinator is a separate service that can be restarted or partitioned away. */
    default boolean isExternal() {
        return !clientPorts().isEmpty();
    }

    /**
     * The coordinator-restart fault: kills (SIGKILL) what this backend's scenario names and starts it
     * again after {@code downtime}, recording each step in {@code faults}.
     */
    void restart(FaultLog faults, Duration downtime);

    @Override
    void close();
}
