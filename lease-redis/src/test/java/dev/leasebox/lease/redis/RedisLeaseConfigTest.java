package dev.leasebox.lease.redis;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RedisLeaseConfigTest {

    private static RedisLeaseConfig.Builder valid() {
        return RedisLeaseConfig.builder().uri("redis://127.0.0.1:6379").namespace("orders");
    }

    @Test
    void theUriGivesHostPortDatabaseTlsAndAclCredentials() {
        RedisLeaseConfig config = valid().uri("rediss://app:p%40ss@redis.internal:6380/3").build();

        assertThat(config.tls()).isTrue();
        assertThat(config.host()).isEqualTo("redis.internal");
        assertThat(config.port()).isEqualTo(6380);
        assertThat(config.database()).isEqualTo(3);
        assertThat(config.user()).contains("app");
        assertThat(config.password()).contains("p@ss");
        assertThat(config.address()).isEqualTo("rediss://app@redis.internal:6380/3");
        assertThat(config.toString()).doesNotContain("p@ss").doesNotContain("p%40ss");
    }

    @Test
    void aLonePasswordIsTheDefaultUsersAndThePortDefaultsTo6379() {
        RedisLeaseConfig config = valid().uri("redis://:secret@localhost").build();

        assertThat(config.user()).isEmpty();
        assertThat(config.password()).contains("secret");
        assertThat(config.port()).isEqualTo(6379);
        assertThat(config.tls()).isFalse();
    }

    @Test
    void aMissingOrForeignUriIsRefusedNamingThePropertyWithoutThePassword() {
        assertThatThrownBy(() -> valid().uri(null).build()).hasMessageStartingWith("Redis lease configuration: uri is required");
        assertThatThrownBy(() -> valid().uri("http://app:secret@host").build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Redis lease configuration: uri must start with redis:// or rediss:// (TLS), was 'http://app:***@host'");
        assertThatThrownBy(() -> valid().uri("redis://host/not-a-db").build()).hasMessageContaining("database");
        assertThatThrownBy(() -> valid().uri("redis://app:pa ss@host").build())
                .hasMessage("Redis lease configuration: uri is not a valid URI, was 'redis://app:***@host'");
    }

    @Test
    void theNamespaceDefaultsToLeaseboxAndHasNoWhitespaceAndAWellFormedHashTag() {
        assertThat(RedisLeaseConfig.builder().uri("redis://127.0.0.1").build().namespace()).isEqualTo("leasebox");
        assertThatThrownBy(() -> valid().namespace(" ").build()).hasMessageStartingWith("Redis lease configuration: namespace must not be blank");
        assertThatThrownBy(() -> valid().namespace("my orders").build()).hasMessageContaining("namespace must not contain whitespace, was 'my orders'");
        assertThatThrownBy(() -> valid().namespace("{orders").build()).hasMessageContaining("namespace opens a hash tag");
        assertThatThrownBy(() -> valid().namespace("{}orders").build()).hasMessageContaining("namespace opens a hash tag");
        assertThat(valid().namespace("{orders}").build().namespace()).isEqualTo("{orders}");
    }

    @Test
    void timeoutsAndPoolSizeMustBePositive() {
        assertThatThrownBy(() -> valid().poolSize(0).build()).hasMessage("Redis lease configuration: pool-size must be at least 1, was '0'");
        assertThatThrownBy(() -> valid().connectTimeout(Duration.ZERO).build()).hasMessage("Redis lease configuration: connect-timeout must be between 1ms and 2147483647ms, was '0s'");
        assertThatThrownBy(() -> valid().socketTimeout(Duration.ofMillis(-5)).build()).hasMessageContaining("socket-timeout must be");
    }

    @Test
    void sentinelNeedsBothAMasterNameAndNodes() {
        assertThatThrownBy(() -> valid().sentinel("mymaster", java.util.List.of()).build()).hasMessageContaining("sentinel-nodes");
        assertThatThrownBy(() -> valid().sentinel(null, RedisLeaseConfig.parseNodes("h:26379")).build()).hasMessageContaining("sentinel-master");
        assertThatThrownBy(() -> RedisLeaseConfig.parseNodes("h1:26379,h2")).hasMessageContaining("sentinel-nodes must be a comma-separated list of host:port");

        RedisLeaseConfig config = valid().uri("redis://app:pw@unused").sentinel("mymaster", RedisLeaseConfig.parseNodes("s1:26379, s2:26380")).build();
        assertThat(config.address()).isEqualTo("redis://app@mymaster/0 via Sentinel [s1:26379, s2:26380]");
    }

    @Test
    void aTrustStoreNeedsRedissAndAReadableFile() {
        Path missing = Path.of("/nonexistent/trust.p12");
        assertThatThrownBy(() -> valid().tlsTrustStore(missing, "").build())
                .hasMessage("Redis lease configuration: tls-truststore is set but the uri is not rediss:// (TLS), was '/nonexistent/trust.p12'");
        assertThatThrownBy(() -> valid().uri("rediss://127.0.0.1").tlsTrustStore(missing, "").build())
                .hasMessage("Redis lease configuration: tls-truststore is not a readable file, was '/nonexistent/trust.p12'");
    }

    @Test
    void propertiesAreReadWithAPrefixAndBadNumbersNameTheProperty() {
        Properties properties = new Properties();
        properties.setProperty("leasebox.redis.uri", "redis://127.0.0.1:7000");
        properties.setProperty("leasebox.redis.namespace", "{billing}");
        properties.setProperty("leasebox.redis.password", "pw");
        properties.setProperty("leasebox.redis.pool-size", "4");
        properties.setProperty("leasebox.redis.socket-timeout", "750ms");
        properties.setProperty("leasebox.redis.sentinel-master", "m");
        properties.setProperty("leasebox.redis.sentinel-nodes", "127.0.0.1:26379");

        RedisLeaseConfig config = RedisLeaseConfig.fromProperties(properties, "leasebox.redis.");

        assertThat(config.namespace()).isEqualTo("{billing}");
        assertThat(config.password()).contains("pw");
        assertThat(config.poolSize()).isEqualTo(4);
        assertThat(config.socketTimeout()).isEqualTo(Duration.ofMillis(750));
        assertThat(config.sentinelMaster()).contains("m");

        properties.setProperty("leasebox.redis.pool-size", "many");
        assertThatThrownBy(() -> RedisLeaseConfig.fromProperties(properties, "leasebox.redis."))
                .hasMessage("Redis lease configuration: leasebox.redis.pool-size must be an integer, was 'many'");
        properties.setProperty("leasebox.redis.pool-size", "4");
        properties.setProperty("leasebox.redis.socket-timeout", "750");
        assertThatThrownBy(() -> RedisLeaseConfig.fromProperties(properties, "leasebox.redis."))
                .hasMessage("leasebox.redis.socket-timeout: '750' is not a duration: write e.g. 500ms, 30s, 2m, 1m30s, 1h, 7d or PT30S");
    }
}
