package dev.leasebox.kafka;

import dev.leasebox.lease.spi.ClientVersionException;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class KafkaClientsVersionTest {

    /** A class path whose kafka-clients predates 3.1: its admin client cannot answer allTopicNames(). */
    private static final ClassLoader KAFKA_3_0 = new ClassLoader(KafkaClientsVersionTest.class.getClassLoader()) {
        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (name.equals("org.apache.kafka.clients.admin.DescribeTopicsResult")) {
                throw new ClassNotFoundException(name);
            }
            return super.loadClass(name, resolve);
        }

        @Override
        public InputStream getResourceAsStream(String name) {
            return name.equals("kafka/kafka-version.properties")
                    ? new ByteArrayInputStream("commitId=0\nversion=3.0.2\n".getBytes(StandardCharsets.UTF_8))
                    : super.getResourceAsStream(name);
        }
    };

    @Test
    void theKafkaClientsWeBuildWithIsAccepted() {
        assertThatCode(() -> KafkaClientsVersion.requireSupported(getClass().getClassLoader())).doesNotThrowAnyException();
        assertThat(KafkaClientsVersion.found(getClass().getClassLoader())).isEqualTo(KafkaClientsVersion.BUILT_WITH);
    }

    @Test
    void anOlderKafkaClientsIsRefusedInOneLineNamingTheVersionToPin() {
        assertThatThrownBy(() -> KafkaClientsVersion.requireSupported(KAFKA_3_0))
                .isInstanceOfSatisfying(ClientVersionException.class, e -> {
                    assertThat(e.found()).isEqualTo("3.0.2");
                    assertThat(e.pinProperty()).isEqualTo("kafka.version");
                    assertThat(e.pinVersion()).isEqualTo(KafkaClientsVersion.BUILT_WITH);
                })
                .hasMessageContaining("the class path has kafka-clients 3.0.2")
                .hasMessageContaining("kafka.version=" + KafkaClientsVersion.BUILT_WITH)
                .hasMessageNotContaining("\n");
    }
}
