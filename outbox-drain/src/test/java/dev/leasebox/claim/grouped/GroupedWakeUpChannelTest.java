package dev.leasebox.claim.grouped;

import dev.leasebox.claim.LeaseGrouping;
import dev.leasebox.lease.ForwardingLeaseManager;
import dev.leasebox.lease.LapsingLeases;
import dev.leasebox.lease.WakeUpChannel;
import dev.leasebox.lease.inmemory.InMemoryLeaseManager;
import dev.leasebox.testkit.MutableClock;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Grouping rows changes what is leased, not how processes wake each other: the channel passes through. */
class GroupedWakeUpChannelTest {

    @Test
    void theGroupedManagersWakeUpChannelIsOfferedAndLapsingLeasesStillAreNot() {
        MutableClock clock = MutableClock.startingAt2026();
        try (InMemoryLeaseManager coordinator = new InMemoryLeaseManager(clock)) {
            ChannelledManager channelled = new ChannelledManager(coordinator);
            GroupedLeaseManager grouped = GroupedLeaseManager.builder(channelled, LeaseGrouping.DEFAULT).clock(clock)
                    .reapInterval(java.time.Duration.ZERO).open();
            try {
                assertThat(grouped.as(WakeUpChannel.class)).containsSame(channelled);
                assertThat(coordinator.as(LapsingLeases.class)).isPresent();
                assertThat(grouped.as(LapsingLeases.class)).isEmpty();
            } finally {
                grouped.close();
            }
        }
    }

    /** A manager that offers a channel, as the Redis, ZooKeeper and Hazelcast managers do. */
    private static final class ChannelledManager extends ForwardingLeaseManager implements WakeUpChannel {
        ChannelledManager(InMemoryLeaseManager delegate) {
            super(delegate);
        }

        @Override
        public void publish(String topic, String hint) {
        }

        @Override
        public Subscription subscribe(String topic, Listener listener) {
            return () -> { };
        }
    }
}
