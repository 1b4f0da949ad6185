package dev.leasebox.lease.zookeeper;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ZooKeeperLeaseConfigTest {

    @Test
    void defaultsAreSafeAndTheOperationTimeoutFollowsTheSessionTimeout() {
        ZooKeeperLeaseConfig config = ZooKeeperLeaseConfig.builder("127.0.0.1:2181").sessionTimeout(Duration.ofSeconds(9)).build();
        assertThat(config.namespace()).isEqualTo("leasebox");
        assertThat(config.operationTimeout()).isEqualTo(Duration.ofSeconds(9));
        assertThat(config.digest()).isEmpty();
        assertThat(config.memberId()).isNotBlank().doesNotContain("/");
        assertThat(config.maxClockSkew()).isEqualTo(Duration.ofSeconds(1));
        assertThat(config.localClock()).as("local deadlines on the JVM's monotonic clock")
                .isSameAs(dev.leasebox.lease.MonotonicClock.system());
    }

    @Test
    void aBadValueFailsWithOneLineNamingThePropertyAndTheValue() {
        assertThatThrownBy(() -> ZooKeeperLeaseConfig.builder(" ").build())
                .hasMessageContaining("leasebox.zookeeper.connect-string").hasMessageNotContaining("\n");
        assertThatThrownBy(() -> ZooKeeperLeaseConfig.builder("zk:2181/chroot").build())
                .hasMessageContaining("leasebox.zookeeper.connect-string = zk:2181/chroot");
        assertThatThrownBy(() -> ZooKeeperLeaseConfig.builder("zk:2181").namespace("a/b").build())
                .hasMessageContaining("leasebox.zookeeper.namespace = a/b");
        assertThatThrownBy(() -> ZooKeeperLeaseConfig.builder("zk:2181").sessionTimeout(Duration.ZERO).build())
                .hasMessageContaining("leasebox.zookeeper.session-timeout = PT0S");
        assertThatThrownBy(() -> ZooKeeperLeaseConfig.builder("zk:2181").digest("nopassword").build())
                .hasMessageContaining("leasebox.zookeeper.digest").hasMessageNotContaining("nopassword");
        assertThatThrownBy(() -> ZooKeeperLeaseConfig.builder("zk:2181").maxClockSkew(Duration.ofMillis(-1)).build())
                .hasMessageContaining("leasebox.zookeeper.max-clock-skew = PT-0.001S");
    }

    @Test
    void toStringHidesTheDigestPassword() {
        assertThat(ZooKeeperLeaseConfig.builder("zk:2181").digest("user:secret").build().toString()).doesNotContain("secret");
    }
}
