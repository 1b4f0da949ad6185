package dev.leasebox.drain;

import dev.leasebox.outbox.EmissionStatus;
import dev.leasebox.provider.OutboxProvider;
import dev.leasebox.provider.ProviderOutcome;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Collectors;

import static dev.leasebox.drain.DrainFixture.LEASE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Several drains over one outbox, with emissions that stall past the lease: every entry is
 * delivered, and an entry is emitted twice only when the earlier emission's claim had expired
 * before the later claim was granted (invariant 5), with the same idempotency key and a higher fence.
 */
class DuplicatesAcrossExpiryTest {

    private static final Logger log = LoggerFactory.getLogger(DuplicatesAcrossExpiryTest.class);

    private final DrainFixture f = new DrainFixture();
    private final Map<Long, ObservedClaimStore.Granted> grants = new ConcurrentHashMap<>();

    @AfterEach
    void closeFixture() {
        f.close();
    }

    @Test
    void interleavedDrainsDuplicateOnlyAcrossExpiry() {
        f.enqueue(200);
        Random faults = new Random(2026);
        RecordingProvider provider = new RecordingProvider(f.clock, e -> {
            if (faults.nextInt(100) < 5) {
                f.clock.advance(LEASE.plusSeconds(faults.nextInt(10))); // a stall: GC pause, slow broker
            }
            return ProviderOutcome.delivered();
        });
        List<OutboxDrain> drains = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            drains.add(drain("worker-" + i, provider, 8, 1));
        }

        for (int round = 0; round < 1_000 && !allDelivered(); round++) {
            boolean idle = true;
            for (OutboxDrain drain : drains) {
                idle &= drain.runOnce().isIdle();
            }
            if (idle) {
                f.clock.advance(Duration.ofSeconds(1));
            }
        }

        assertThat(allDelivered()).isTrue();
        assertThat(provider.emissions).allSatisfy(e -> assertThat(e.at())
                .as("entry %d emitted under claim %d only before its local deadline", e.entryId(), e.fence().orElseThrow())
                .isBefore(grants.get(e.fence().orElseThrow()).expiresAt().minus(drains.get(0).options().claimSafetyMargin())));
        int duplicates = checkDuplicatesOnlyAcrossExpiry(provider);
        log.info("interleaved: {} entries, {} emissions, {} duplicates, all across expiry", 200,
                provider.emissions.size(), duplicates);
        assertThat(duplicates).as("the seeded stalls do cause duplicates, so the check above checked something").isPositive();
    }

    @Test
    void concurrentLoopsDuplicateOnlyAcrossExpiry() {
        f.enqueue(300);
        RecordingProvider provider = new RecordingProvider(f.clock, e -> {
            if (ThreadLocalRandom.current().nextInt(100) < 1) {
                f.clock.advance(LEASE.plusSeconds(1));
            }
            return ProviderOutcome.delivered();
        });
        List<OutboxDrain> drains = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            drains.add(drain("worker-" + i, provider, 5, 2));
        }

        drains.forEach(OutboxDrain::start);
        await().atMost(Duration.ofSeconds(60)).until(this::allDelivered);
        drains.forEach(OutboxDrain::close);

        int duplicates = checkDuplicatesOnlyAcrossExpiry(provider);
        log.info("concurrent loops: {} entries, {} emissions, {} duplicates, all across expiry", 300,
                provider.emissions.size(), duplicates);
        assertThat(provider.emissions.stream().map(RecordingProvider.Emission::entryId).distinct().count()).isEqualTo(300);
    }

    private OutboxDrain drain(String owner, OutboxProvider provider, int batchSize, int concurrency) {
        DrainOptions options = DrainFixture.options(owner).batchSize(batchSize).concurrency(concurrency)
                .idlePolling(Duration.ofMillis(1), Duration.ofMillis(10)).build();
        return f.register(f.drainOn(new ObservedClaimStore(f.newClaimStore(), grants), provider, options).build());
    }

    private boolean allDelivered() {
        return f.outbox.all().stream().allMatch(e -> e.status() == EmissionStatus.DELIVERED);
    }

    /** Asserts invariant 5 over every pair of successive emissions of one entry; returns how many duplicates. */
    private int checkDuplicatesOnlyAcrossExpiry(RecordingProvider provider) {
        Map<Long, List<RecordingProvider.Emission>> byEntry = provider.emissions.stream()
                .collect(Collectors.groupingBy(RecordingProvider.Emission::entryId));
        int duplicates = 0;
        for (List<RecordingProvider.Emission> emissions : byEntry.values()) {
            List<RecordingProvider.Emission> byFence = new ArrayList<>(emissions);
            byFence.sort(Comparator.comparingLong(e -> e.fence().orElseThrow()));
            for (int i = 1; i < byFence.size(); i++) {
                RecordingProvider.Emission earlier = byFence.get(i - 1);
                RecordingProvider.Emission later = byFence.get(i);
                ObservedClaimStore.Granted earlierClaim = grants.get(earlier.fence().orElseThrow());
                ObservedClaimStore.Granted laterClaim = grants.get(later.fence().orElseThrow());
                assertThat(later.fence().orElseThrow()).as("one emission per claim").isGreaterThan(earlier.fence().orElseThrow());
                assertThat(earlierClaim.expiresAt())
                        .as("entry %d: claim %d (%s) must have expired before claim %d (%s) was granted",
                                earlier.entryId(), earlierClaim.token(), earlierClaim.owner(), laterClaim.token(), laterClaim.owner())
                        .isBeforeOrEqualTo(laterClaim.claimedAt());
                assertThat(later.idempotencyKey()).isEqualTo(earlier.idempotencyKey());
                assertThat(laterClaim.claimAttemptCount()).isGreaterThan(earlierClaim.claimAttemptCount());
                duplicates++;
            }
        }
        return duplicates;
    }
}
