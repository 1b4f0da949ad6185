package dev.leasebox.lease.hazelcast;

import com.hazelcast.client.HazelcastClient;
import com.hazelcast.client.config.ClientConfig;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.instance.BuildInfoProvider;
import dev.leasebox.lease.spi.ClientVersionException;
import dev.leasebox.testkit.LoopbackPorts;
import dev.leasebox.testkit.ManagedProcess;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Run only by the failsafe execution {@code hazelcast-5.5} (see the pom), whose class path has the community
 * Hazelcast 5.5.0 that Spring Boot 3.5, 4.0 and 4.1 manage instead of the 5.4.0 lease-hazelcast is built with.
 * Three CP members of 5.4.0 run in a child JVM. A 5.5.0 client cannot use their CP Subsystem at all (Hazelcast
 * refuses it as a licensed feature), so lease-hazelcast refuses that jar at start, in one line naming the pin.
 */
class CommunityHazelcastRefusedIT {

    private static final String CLUSTER = "leasebox-it-" + UUID.randomUUID().toString().substring(0, 8);
    private static final List<Integer> PORTS = LoopbackPorts.free(3);
    private static ManagedProcess members;

    @BeforeAll
    static void startCpMembersOfFiveFour() {
        String classPath = System.getProperty("leasebox.it.cp-members.classpath");
        assumeTrue(classPath != null, "runs in the failsafe execution hazelcast-5.5 only, which sets the members' class path");
        String ports = PORTS.stream().map(String::valueOf).collect(Collectors.joining(","));
        members = ManagedProcess.start("hazelcast-5.4-cp-members", List.of(
                System.getProperty("java.home") + "/bin/java", "-Xmx512m", "-cp", classPath,
                CpMembers54Main.class.getName(), CLUSTER, ports));
        await().atMost(Duration.ofSeconds(90)).until(() -> {
            assertThat(members.isAlive()).as(members.logTail()).isTrue();
            return Files.readString(members.log()).contains("CP READY");
        });
    }

    @AfterAll
    static void stopMembers() {
        if (members != null) {
            members.kill();
        }
    }

    @Test
    void theClassPathReallyHasCommunityHazelcastFiveFive() {
        assertThat(BuildInfoProvider.getBuildInfo().getVersion()).isEqualTo("5.5.0");
        assertThat(BuildInfoProvider.getBuildInfo().isEnterprise()).isFalse();
    }

    @Test
    void aCommunityFiveFiveClientCannotUseTheCpSubsystemOfFiveFourMembers() {
        ClientConfig config = new ClientConfig();
        config.setClusterName(CLUSTER);
        PORTS.forEach(port -> config.getNetworkConfig().addAddress("127.0.0.1:" + port));
        HazelcastInstance client = HazelcastClient.newHazelcastClient(config);
        try {
            assertThat(client.getCluster().getMembers()).hasSize(3);
            assertThatThrownBy(() -> client.getCPSubsystem().getLock("probe").lockAndGetFence())
                    .hasMessageContaining("CP subsystem is a licensed feature");
        } finally {
            client.shutdown();
        }
    }

    @Test
    void leaseHazelcastRefusesItAtStartNamingThePin() {
        HazelcastLeaseConfig config = HazelcastLeaseConfig.client(PORTS.stream().map(port -> "127.0.0.1:" + port).toList(), CLUSTER)
                .connectTimeout(Duration.ofSeconds(30)).build();
        assertThatThrownBy(() -> HazelcastLeaseManager.start(config))
                .isInstanceOfSatisfying(ClientVersionException.class, e -> {
                    assertThat(e.found()).isEqualTo("5.5.0");
                    assertThat(e.pinProperty()).isEqualTo("hazelcast.version");
                    assertThat(e.pinVersion()).isEqualTo(HazelcastVersion.BUILT_WITH);
                })
                .hasMessageContaining("the class path has community Hazelcast 5.5.0, where it is Enterprise-only")
                .hasMessageContaining("hazelcast.version=" + HazelcastVersion.BUILT_WITH)
                .hasMessageNotContaining("\n");
    }
}
