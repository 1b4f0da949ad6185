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

    @Test
    void rowLockSlotsMustBeAWholeNumberInRange() {
        assertThatThrownBy(() -> open(Map.of("rowLockSlots", "many")))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("hazelcast option rowLockSlots expects a whole number like 4096, was 'many'");
        assertThatThrownBy(() -> open(Map.of("rowLockSlots", "70000")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("rowLockSlots must be in [0, 65536]").hasMessageContaining("was 70000");
        assertThatThrownBy(() -> open(Map.of("rowLockBlock", "few")))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("hazelcast option rowLockBlock expects a whole number like 128, was 'few'");
        assertThatThrownBy(() -> open(Map.of("rowLockBlock", "0")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("rowLockBlock must be in [1, 1024]").hasMessageContaining("was 0");
    }

    @Test
    void rowLockLingerIsADurationInRange() {
        assertThatThrownBy(() -> open(Map.of("rowLockLinger", "500")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("hazelcast option rowLockLinger expects a duration like 500ms or 1s (or 0), was '500'");
        assertThatThrownBy(() -> open(Map.of("rowLockLinger", "soon")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("expects a duration like 500ms");
        assertThatThrownBy(() -> open(Map.of("rowLockLinger", "11s")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("rowLockLinger must be in [0, 10000 ms]")
                .hasMessageContaining("was 11000 ms");
        assertThatThrownBy(() -> open(Map.of("rowLockLinger", "-5ms")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("was -5 ms");
    }

    @Test
    void peerRanksIsTrueOrFalse() {
        assertThatThrownBy(() -> open(Map.of("peerRanks", "maybe")))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("hazelcast option peerRanks expects true or false, was 'maybe'");
    }

    @Test
    void unknownOptionsNameTheKnownOnes() {
        assertThatThrownBy(() -> open(Map.of("rowLockSlot", "8")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("unknown hazelcast backend option 'rowLockSlot'")
                .hasMessageContaining("rowLockSlots").hasMessageContaining("peerRanks");
    }
}
