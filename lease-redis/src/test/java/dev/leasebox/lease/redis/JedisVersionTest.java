package dev.leasebox.lease.redis;

import dev.leasebox.lease.spi.ClientVersionException;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class JedisVersionTest {

    /** A class path as Spring Boot 3.5's dependency management leaves it: Jedis 6, without RedisClient. */
    private static final ClassLoader JEDIS_6 = new ClassLoader(JedisVersionTest.class.getClassLoader()) {
        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (name.equals("redis.clients.jedis.RedisClient")) {
                throw new ClassNotFoundException(name);
            }
            return super.loadClass(name, resolve);
        }

        @Override
        public InputStream getResourceAsStream(String name) {
            return name.equals("redis/clients/jedis/pom.properties")
                    ? new ByteArrayInputStream("groupId=redis.clients\nartifactId=jedis\nversion=6.0.0\n".getBytes(StandardCharsets.UTF_8))
                    : super.getResourceAsStream(name);
        }
    };

    @Test
    void theJedisWeBuildWithIsAccepted() {
        assertThatCode(() -> JedisVersion.requireSupported(getClass().getClassLoader())).doesNotThrowAnyException();
        assertThat(JedisVersion.found(getClass().getClassLoader())).isEqualTo(JedisVersion.BUILT_WITH);
    }

    @Test
    void anOlderJedisIsRefusedInOneLineNamingTheVersionToPin() {
        assertThatThrownBy(() -> JedisVersion.requireSupported(JEDIS_6))
                .isInstanceOfSatisfying(ClientVersionException.class, e -> {
                    assertThat(e.found()).isEqualTo("6.0.0");
                    assertThat(e.pinProperty()).isEqualTo("jedis.version");
                    assertThat(e.pinVersion()).isEqualTo(JedisVersion.BUILT_WITH);
                })
                .hasMessageContaining("the class path has Jedis 6.0.0")
                .hasMessageContaining("jedis.version=" + JedisVersion.BUILT_WITH)
                .hasMessageNotContaining("\n");
    }
}
