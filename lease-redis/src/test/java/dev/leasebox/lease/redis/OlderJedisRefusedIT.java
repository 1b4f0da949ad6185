package dev.leasebox.lease.redis;

import dev.leasebox.lease.spi.ClientVersionException;
import dev.leasebox.lease.spi.LeaseBackendSettings;
import dev.leasebox.lease.spi.LeaseBackends;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Run only by the failsafe executions {@code jedis-6.0.0} and {@code jedis-7.0.0} (see the pom), whose class path
 * has the real Jedis that Spring Boot 3.5 or 4.0 manages instead of the one lease-redis is built with: opening the
 * backend stops in one line naming the version to pin, before any connection and without a
 * {@code NoClassDefFoundError}.
 */
class OlderJedisRefusedIT {

    private static final String JEDIS = System.getProperty("leasebox.it.jedis-refused", "");

    @BeforeAll
    static void onlyInItsExecutions() {
        assumeTrue(!JEDIS.isEmpty(), "runs in the failsafe executions jedis-6.0.0 and jedis-7.0.0 only");
    }

    @Test
    void theClassPathReallyHasTheOlderJedis() {
        assertThat(JedisVersion.found(getClass().getClassLoader())).isEqualTo(JEDIS);
    }

    @Test
    void openingTheBackendByNameIsRefusedNamingThePin() {
        LeaseBackendSettings settings = new LeaseBackendSettings("redis://127.0.0.1:6379", "old-jedis-it", Duration.ofSeconds(10), Map.of());
        assertThatThrownBy(() -> LeaseBackends.named("redis").open(settings))
                .isInstanceOfSatisfying(ClientVersionException.class, e -> {
                    assertThat(e.found()).isEqualTo(JEDIS);
                    assertThat(e.pinProperty()).isEqualTo("jedis.version");
                })
                .hasMessage("lease-redis needs Jedis 7.2 or later (built with redis.clients:jedis " + JedisVersion.BUILT_WITH
                        + "), but the class path has Jedis " + JEDIS + ": pin jedis " + JedisVersion.BUILT_WITH + " (Spring Boot's "
                        + "dependency management picks Jedis: set the property jedis.version=" + JedisVersion.BUILT_WITH
                        + " in your Maven <properties> or Gradle ext)");
    }

    @Test
    void startingAManagerIsRefusedToo() {
        RedisLeaseConfig config = RedisLeaseConfig.builder().uri("redis://127.0.0.1:6379").namespace("old-jedis-it").build();
        assertThatThrownBy(() -> RedisLeaseManager.start(config)).isInstanceOf(ClientVersionException.class)
                .hasMessageContaining("the class path has Jedis " + JEDIS);
    }
}
