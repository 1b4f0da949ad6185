package dev.leasebox.dist;

import dev.leasebox.claim.grouped.GroupedLeaseManager;
import dev.leasebox.claim.leased.RowBlockLeases;
import dev.leasebox.cli.embedded.EmbeddedCoordinator;
import dev.leasebox.cli.embedded.EmbeddedCoordinators;
import dev.leasebox.lease.spi.LeaseBackends;
import dev.leasebox.outbox.ClaimRequest;
import dev.leasebox.outbox.ClaimSelection;
import dev.leasebox.outbox.OutboxClaim;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Candidate stripes end to end with Hazelcast ({@link StripedClaimPathTests}): three CP members in
 * this JVM (CP session TTL 10 s, heartbeat 1 s), each worker a client ranked through the IMap of its
 * namespace's live managers, and PostgreSQL.
 */
class HazelcastClaimPathIT extends StripedClaimPathTests {

    private static EmbeddedCoordinator hazelcast;

    @BeforeAll
    static void startCpMembers() {
        hazelcast = EmbeddedCoordinators.start("hazelcast", Map.of());
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

    /**
     * Grouped row leases end to end, the drain's default on Hazelcast: a
     * worker's claim is granted a group at a time, one FencedLock per group key, so its 100 claims,
     * drawn from the oldest 400 rows (at most 5 blocks of 128), carry one fence per block they fall in,
     * not one per row.
     */
    @Test
    void aClaimOfConsecutiveRowsIsGrantedABlockAtATime() {
        enqueue(400);
        Worker worker = worker();
        awaitPeers(List.of(worker), 1);
        assertThat(worker.manager()).isInstanceOf(GroupedLeaseManager.class);
        assertThat(RowBlockLeases.of(worker.manager())).isEqualTo(128);
        assertThat(worker.manager().describe()).contains("4096 row groups of 128 rows");

        List<OutboxClaim> claims = worker.store().claim(ClaimSelection.ELIGIBLE, new ClaimRequest("w", 100, lease()));

        assertThat(claims).hasSize(100);
        Map<Long, Set<Long>> fencesByBlock = new TreeMap<>();
        claims.forEach(claim -> fencesByBlock.computeIfAbsent(claim.entryId() / 128, b -> new TreeSet<>()).add(claim.token()));
        assertThat(fencesByBlock).as("blocks of 128 among 400 rows").hasSizeBetween(1, 5)
                .allSatisfy((block, fences) -> assertThat(fences).as("fences of block %d", block).hasSize(1));
        assertThat(claims.stream().map(OutboxClaim::token).distinct()).as("one grant per block").hasSize(fencesByBlock.size());
    }

    /** At most the CP session TTL minus its heartbeat. */
    @Override
    protected Duration lease() {
        return Duration.ofSeconds(9);
    }
}
