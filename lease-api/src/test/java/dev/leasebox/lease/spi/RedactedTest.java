package dev.leasebox.lease.spi;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class RedactedTest {

    @Test
    void aPasswordInAUriIsReplacedAndTheUserKept() {
        assertThat(Redacted.credentials("leasebox.redis.uri=redis://app:s3cret@10.0.0.1:6379/2 cannot be opened"))
                .isEqualTo("leasebox.redis.uri=redis://app:***@10.0.0.1:6379/2 cannot be opened");
        assertThat(Redacted.credentials("rabbitmq:amqp://guest:guest@127.0.0.1:5672/orders"))
                .isEqualTo("rabbitmq:amqp://guest:***@127.0.0.1:5672/orders");
    }

    @Test
    void aTokenAloneIsReplaced() {
        assertThat(Redacted.credentials("rediss://tok3n@host:6380")).isEqualTo("rediss://***@host:6380");
    }

    @Test
    void textWithoutCredentialsIsLeftAlone() {
        assertThat(Redacted.credentials("redis://127.0.0.1:6379 and jdbc:postgresql://db/test?user=x"))
                .isEqualTo("redis://127.0.0.1:6379 and jdbc:postgresql://db/test?user=x");
        assertThat(Redacted.credentials(null)).isNull();
    }

    @Test
    void aSingleUrisUserInfoIsReplacedWhateverItHolds() {
        assertThat(Redacted.uriCredentials("redis://app:pa ss@host:6379/2")).isEqualTo("redis://app:***@host:6379/2");
        assertThat(Redacted.uriCredentials("redis://app:p@ss@host")).isEqualTo("redis://app:***@host");
        assertThat(Redacted.uriCredentials("redis://:secret@host")).isEqualTo("redis://:***@host");
        assertThat(Redacted.uriCredentials("rediss://tok en@host:6380")).isEqualTo("rediss://***@host:6380");
        assertThat(Redacted.uriCredentials("http://app:secret@host")).isEqualTo("http://app:***@host");
    }

    @Test
    void aSingleUriWithoutUserInfoIsLeftAlone() {
        assertThat(Redacted.uriCredentials("redis://host:6379/0")).isEqualTo("redis://host:6379/0");
        assertThat(Redacted.uriCredentials("redis://host/x@y")).isEqualTo("redis://host/x@y");
        assertThat(Redacted.uriCredentials("redis://host?name=a@b")).isEqualTo("redis://host?name=a@b");
        assertThat(Redacted.uriCredentials("host:6379")).isEqualTo("host:6379");
        assertThat(Redacted.uriCredentials(null)).isNull();
    }
}
