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
        assertThatThrownBy(() -> new RedisLeaseBackend().open(new LeaseBackendSettings("redis://127.0.0.1:6379", "ns",
                Duration.ofSeconds(30), Map.of("connect-timeout-ms", "200"))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unknown redis backend option 'connect-timeout-ms'")
                .hasMessageContaining("connect-timeout").hasMessageContaining("sentinel-master").hasMessageContaining("tls-truststore");
    }

    @Test
    void durationsAreReadByTheSharedParserNamingTheOption() {
        assertThatThrownBy(() -> new RedisLeaseBackend().open(new LeaseBackendSettings("redis://127.0.0.1:6379", "ns",
                Duration.ofSeconds(30), Map.of("socket-timeout", "2000"))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("socket-timeout: '2000' is not a duration: write e.g. 500ms, 30s, 2m, 1m30s, 1h, 7d or PT30S");
    }
}
