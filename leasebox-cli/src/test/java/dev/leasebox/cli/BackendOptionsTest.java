package dev.leasebox.cli;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** A backend's failure reaches the command's user in the command's words. */
class BackendOptionsTest {

    @Test
    void anUnreachableZooKeeperNamesTheFlagNotTheLibrarysKey() {
        String library = "ZooKeeper ensemble at 127.0.0.1:1 is not reachable within PT10S: "
                + "check leasebox.zookeeper.connect-string and that the servers are running";
        assertThat(BackendOptions.inCliTerms("zookeeper", library)).isEqualTo("ZooKeeper ensemble at 127.0.0.1:1 is not "
                + "reachable within 10s: check --zookeeper and that the servers are running");
    }

    @Test
    void otherKeysBecomeBackendOptions() {
        assertThat(BackendOptions.inCliTerms("zookeeper", "no access to /leasebox (check leasebox.zookeeper.digest and the ACLs)"))
                .isEqualTo("no access to /leasebox (check --backend-option digest=… and the ACLs)");
        assertThat(BackendOptions.inCliTerms("zookeeper", "leasebox.zookeeper.session-timeout = PT0S is invalid"))
                .isEqualTo("--backend-option session-timeout=… = 0s is invalid");
        assertThat(BackendOptions.inCliTerms("zookeeper", "session of PT1M30S")).isEqualTo("session of 1m30s");
    }
}
