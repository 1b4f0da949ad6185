package dev.leasebox.cli;

import dev.leasebox.testkit.LoopbackPorts;
import dev.leasebox.jdbc.JdbcOutboxException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

class JdbcDataSourcesTest {

    @Test
    void anUnreachableDatabaseNamesTheUrlTriedWithoutThePassword() {
        int closedPort = LoopbackPorts.free();
        String url = "jdbc:postgresql://127.0.0.1:" + closedPort + "/test?user=postgres&password=s3cret";
        assertThatThrownBy(() -> JdbcDataSources.pooled(url))
                .isInstanceOf(JdbcOutboxException.class)
                .hasMessageStartingWith("Cannot reach the outbox database at jdbc:postgresql://127.0.0.1:" + closedPort
                        + "/test?user=postgres&password=***: ")
                .hasMessageNotContaining("s3cret")
                .hasMessageNotContaining("\n");
    }

    @Test
    void aUrlThatIsNotJdbcSaysWhatOneLooksLike() {
        assertThatThrownBy(() -> JdbcDataSources.pooled("postgresql://127.0.0.1/test"))
                .isInstanceOf(JdbcOutboxException.class)
                .hasMessageContaining("expected e.g. jdbc:postgresql://127.0.0.1:5432/outbox");
    }
}
