package dev.leasebox.lease;

/**
 * A lease manager whose leases, never released, cost nothing once their ttl has passed: the coordinator
 * forgets them by itself and the client keeps no state for them (Redis: the key expires). Callers that
 * find it with {@link LeaseManager#as(Class)} may skip the release of leases nobody will ask for again,
 * such as the lease of a row that became terminal. ZooKeeper is not one (an unreleased lease's EPHEMERAL
 * node lives as long as the session), nor Hazelcast (the manager unlocks at the deadline itself).
 */
public interface LapsingLeases {
}
