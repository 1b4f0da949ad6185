package dev.leasebox.lease.hazelcast;

import dev.leasebox.lease.spi.LeaseBackendSettings;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Backend options that are refused before any connection is tried (the address is never dialled). */
class HazelcastLeaseBackendTest {

    private static void open(Map<String, String> options) {
        new HazelcastLeaseBackend().open(new LeaseBackendSettings("127.0.0.1:1", "ns", Duration.ofSeconds(9), options));
    }

    /** The row grouping moved to the drain, which takes these options out before it opens a backend. */
    @Test
    void theFormerRowLockOptionsAreRefusedNamingTheDrainsGrouping() {
        for (String option : new String[]{"rowLockSlots", "rowLockBlock", "rowLockLinger"}) {
            assertThatThrownBy(() -> open(Map.of(option, "8")))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("hazelcast option " + option + " moved to the drain's grouped row leases "
                            + "(dev.leasebox.claim.LeaseGrouping), which the leasebox CLI, bench and chaos workers apply for any backend");
        }
    }

    @Test
    void peerRanksIsTrueOrFalse() {
        assertThatThrownBy(() -> open(Map.of("peerRanks", "maybe")))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("hazelcast option peerRanks expects true or false, was 'maybe'");
    }

    @Test
    void operationTimeoutIsWholePositiveSeconds() {
        assertThatThrownBy(() -> open(Map.of("operationTimeout", "2 minutes")))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("hazelcast option expects seconds like 10s, was '2 minutes'");
        assertThatThrownBy(() -> open(Map.of("operationTimeout", "0s")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("operationTimeout");
    }

    @Test
    void unknownOptionsNameTheKnownOnes() {
        assertThatThrownBy(() -> open(Map.of("rowLockSlot", "8")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("unknown hazelcast backend option 'rowLockSlot'")
                .hasMessageContaining("sessionTtl").hasMessageContaining("peerRanks")
                .hasMessageContaining("operationTimeout");
    }
}
