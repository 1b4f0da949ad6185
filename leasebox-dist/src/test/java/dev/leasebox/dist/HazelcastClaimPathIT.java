package dev.leasebox.dist;

import dev.leasebox.lease.spi.EmbeddedCoordinator;
import dev.leasebox.lease.spi.LeaseBackends;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.time.Duration;
import java.util.Map;

/**
 * Candidate stripes end to end with Hazelcast ({@link StripedClaimPathTests}): three CP members in
 * this JVM (CP session 10 s, heartbeat 1 s), each worker a client ranked through the IMap of its
 * namespace's live managers, and PostgreSQL.
 */
class HazelcastClaimPathIT extends StripedClaimPathTests {

    private static EmbeddedCoordinator hazelcast;

    @BeforeAll
    static void startCpMembers() {
        hazelcast = LeaseBackends.named("hazelcast").startEmbedded(Map.of()).orElseThrow();
    }

    @AfterAll
    static void stopCpMembers() {
        hazelcast.close();
    }

    @Override
    protected String backend() {
        return "hazelcast";
    }

    @Override
    protected EmbeddedCoordinator coordinator() {
        return hazelcast;
    }

    /** At most the CP session TTL minus its heartbeat. */
    @Override
    protected Duration lease() {
        return Duration.ofSeconds(9);
    }
}
