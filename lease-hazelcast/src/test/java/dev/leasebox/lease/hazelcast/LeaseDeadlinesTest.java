package dev.leasebox.lease.hazelcast;

import dev.leasebox.lease.spi.LeaseLossListeners;
import dev.leasebox.lease.Lease;
import dev.leasebox.testkit.MutableClock;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class LeaseDeadlinesTest {

    private static final Duration TTL = Duration.ofSeconds(10);

    /**
     * Two renewals of one lease in flight at once, the one sent earlier applied last: the lease keeps
     * the later deadline, which the other renewal's caller was promised.
     */
    @Test
    void aRenewalAppliedLateNeverMovesTheDeadlineBack() {
        MutableClock clock = MutableClock.startingAt2026();
        Instant start = clock.instant();
        LeaseLossListeners listeners = LeaseLossListeners.onCallingThread("test manager", org.slf4j.LoggerFactory.getLogger(HazelcastLeaseManager.class));
        List<Lease> lapsed = new ArrayList<>();
        listeners.add(loss -> lapsed.addAll(loss.leases()));
        LeaseDeadlines deadlines = new LeaseDeadlines(clock, listeners, "test manager");
        Lease lease = new Lease("row-1", "w1", 7, start, TTL, start.plus(TTL));
        deadlines.track(lease, start.plus(TTL));

        clock.advance(Duration.ofSeconds(2));
        assertThat(deadlines.extend(lease, start.plusSeconds(5).plus(TTL))).isTrue();   // sent at +5 s
        assertThat(deadlines.extend(lease, start.plusSeconds(1).plus(TTL))).isTrue();   // sent at +1 s, applied last

        clock.set(start.plusSeconds(5).plus(TTL).minusMillis(1));
        deadlines.reportDue();
        assertThat(lapsed).as("1 ms before the later renewal's deadline").isEmpty();
        clock.set(start.plusSeconds(5).plus(TTL));
        deadlines.reportDue();
        assertThat(lapsed).containsExactly(lease);
    }
}
