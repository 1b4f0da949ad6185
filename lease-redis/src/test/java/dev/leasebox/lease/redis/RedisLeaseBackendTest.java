package dev.leasebox.lease.redis;

import dev.leasebox.lease.spi.LeaseBackendSettings;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RedisLeaseBackendTest {

    @Test
    void anOptionTheBackendDoesNotKnowIsRefusedBeforeAnythingIsOpened() {
        // a misspelt option used to be passed through and ignored
        assertThatThrownBy(() -> new RedisLeaseBackend().open(new LeaseBackendSettings("redis://127.0.0.1:6379", "ns",
                Duration.ofSeconds(30), Map.of("poolsize", "4"))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unknown redis backend option 'poolsize'")
                .hasMessageContaining("pool-size");
    }
}
