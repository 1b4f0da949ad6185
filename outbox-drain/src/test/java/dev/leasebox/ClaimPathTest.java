package dev.leasebox;

import dev.leasebox.claim.ClaimMode;
import dev.leasebox.claim.Granularity;
import dev.leasebox.claim.LeaseGrouping;
import dev.leasebox.claim.ReleaseAfterCompletion;
import dev.leasebox.lease.LeaseManager;
import dev.leasebox.lease.inmemory.InMemoryLeaseManager;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

class ClaimPathTest {

    private static ClaimPath lean(Granularity granularity, LeaseManager leases) {
        return new ClaimPath(granularity, ClaimMode.LEAN, leases, "zookeeper", "127.0.0.1:2181", "leasebox",
                ReleaseAfterCompletion.ALWAYS, false, false);
    }

    @Test
    void leanRowWorkersThatGroupRowsDifferentlyHaveDifferentClaimStyles() {
        try (LeaseManager perRow = new InMemoryLeaseManager(Clock.systemUTC());
             LeaseManager grouped = new LeaseGrouping(128, 4_096, Duration.ofMillis(500))
                     .wrap(new InMemoryLeaseManager(Clock.systemUTC()), Clock.systemUTC());
             LeaseManager groupedLingering = new LeaseGrouping(128, 4_096, Duration.ZERO)
                     .wrap(new InMemoryLeaseManager(Clock.systemUTC()), Clock.systemUTC())) {
            String perRowKey = lean(Granularity.ROW, perRow).claimStyle().key();
            String groupedKey = lean(Granularity.ROW, grouped).claimStyle().key();

            assertThat(perRowKey).isEqualTo("lean row zookeeper 127.0.0.1:2181 namespace leasebox");
            assertThat(groupedKey).isEqualTo("lean row rows grouped 4096x128 zookeeper 127.0.0.1:2181 namespace leasebox");
            assertThat(lean(Granularity.ROW, grouped).claimStyle().description())
                    .contains("lean row claims (rows grouped 4096x128) through zookeeper");
            assertThat(lean(Granularity.ROW, groupedLingering).claimStyle().key())
                    .as("the linger maps no row to another key").isEqualTo(groupedKey);
            assertThat(lean(Granularity.PARTITION, grouped).claimStyle().key())
                    .as("partition leases pass slot keys through ungrouped")
                    .isEqualTo(lean(Granularity.PARTITION, perRow).claimStyle().key());
        }
    }
}
