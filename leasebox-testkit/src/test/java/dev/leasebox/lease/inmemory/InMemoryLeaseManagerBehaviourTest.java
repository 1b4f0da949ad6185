package dev.leasebox.lease.inmemory;

import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseLoss;
import dev.leasebox.lease.LeaseRequest;
import dev.leasebox.testkit.MutableClock;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What the reference manager adds beyond the contract: the fence floor, simulated data loss, closing. */
class InMemoryLeaseManagerBehaviourTest {

    private static final Duration TTL = Duration.ofSeconds(5);

    private final MutableClock clock = MutableClock.startingAt2026();
    private final InMemoryLeaseManager manager = new InMemoryLeaseManager(clock);

    private Lease acquire(String key) {
        return manager.acquire(new LeaseRequest(List.of(key), "w", TTL)).get(0);
    }

    @Test
    void losingTheFenceCounterForgetsLeasesAndReusesFencesUntilTheFloorIsRaised() {
        Lease before = acquire("k");
        acquire("j");

        manager.loseFenceCounter(0);
        Lease reused = acquire("k");

        assertThat(reused.fence()).as("a coordinator that lost its data repeats fences").isLessThanOrEqualTo(before.fence());
        assertThat(manager.raiseFenceFloor(100)).isTrue();
        assertThat(acquire("other").fence()).isEqualTo(101);
    }

    @Test
    void raisingTheFloorNeverLowersTheCounter() {
        manager.raiseFenceFloor(50);
        manager.raiseFenceFloor(10);

        assertThat(acquire("k").fence()).isEqualTo(51);
    }

    @Test
    void heldCountCountsOnlyUnexpiredLeases() {
        acquire("a");
        clock.advance(Duration.ofSeconds(3));
        acquire("b");

        assertThat(manager.heldCount()).isEqualTo(2);
        clock.advance(Duration.ofSeconds(2));
        assertThat(manager.heldCount()).isEqualTo(1);
    }

    @Test
    void aRefusedRenewalIsReportedAsRenewalRefused() {
        List<LeaseLoss> losses = new CopyOnWriteArrayList<>();
        manager.addLeaseLossListener(losses::add);
        Lease lease = acquire("k");
        clock.advance(TTL);

        assertThat(manager.renew(List.of(lease))).isEmpty();
        assertThat(losses).singleElement().satisfies(loss -> {
            assertThat(loss.cause()).isEqualTo(LeaseLoss.Cause.RENEWAL_REFUSED);
            assertThat(loss.leases()).containsExactly(lease);
        });
    }

    @Test
    void aClosedManagerRefusesWork() {
        manager.close();

        assertThatThrownBy(() -> manager.acquire(new LeaseRequest(List.of("k"), "w", TTL)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
    }
}
