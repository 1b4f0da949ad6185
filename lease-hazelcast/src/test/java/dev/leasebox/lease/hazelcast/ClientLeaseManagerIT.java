package dev.leasebox.lease.hazelcast;

import dev.leasebox.testkit.LoopbackPorts;
import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseManager;
import dev.leasebox.lease.LeaseManagerException;
import dev.leasebox.lease.LeaseRequest;
import dev.leasebox.lease.spi.LeaseBackendSettings;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Client mode against three embedded CP members, plus the start-up failures: an unreachable
 * cluster, a ttl the CP session cannot honour, a configuration file.
 */
class ClientLeaseManagerIT {

    private static final Duration SESSION_TTL = Duration.ofSeconds(CpCluster.SESSION_TTL_SECONDS);
    private static final Duration HEARTBEAT = Duration.ofSeconds(CpCluster.HEARTBEAT_SECONDS);
    private static final Duration TTL = Duration.ofSeconds(8);

    private static CpCluster cluster;
    private static HazelcastLeaseManager onMember;

    @BeforeAll
    static void startCluster() {
        cluster = CpCluster.startThreeCpMembers();
        onMember = HazelcastLeaseManager.using(cluster.members.get(1), HazelcastLeaseConfig.existingInstance().build());
    }

    @AfterAll
    static void stopCluster() {
        if (onMember != null) {
            onMember.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    private static HazelcastLeaseConfig.Builder clientConfig() {
        return HazelcastLeaseConfig.client(cluster.addresses(), cluster.clusterName).cpSession(SESSION_TTL, HEARTBEAT);
    }

    @Test
    void clientLeasesExcludeMembersAndReleaseHandsThemOnWithHigherFences() {
        List<String> keys = keys("client", 5);
        try (HazelcastLeaseManager client = HazelcastLeaseManager.start(clientConfig().leaseTtl(TTL).build())) {
            List<Lease> held = client.acquire(new LeaseRequest(keys, "client-owner", TTL));
            assertThat(held).extracting(Lease::key).containsExactlyInAnyOrderElementsOf(keys);
            assertThat(onMember.acquire(new LeaseRequest(keys, "member-owner", TTL))).isEmpty();
            assertThat(client.acquire(new LeaseRequest(keys, "client-owner", TTL))).as("reentrant re-acquire refused").isEmpty();
            assertThat(client.renew(held)).hasSize(keys.size());

            assertThat(client.release(held)).hasSize(keys.size());

            List<Lease> next = onMember.acquire(new LeaseRequest(keys, "member-owner", TTL));
            assertThat(next).hasSize(keys.size());
            long highestClientFence = held.stream().mapToLong(Lease::fence).max().orElseThrow();
            assertThat(next).allSatisfy(l -> assertThat(l.fence()).isGreaterThan(highestClientFence));
            onMember.release(next);
        }
    }

    /**
     * The namespace means one thing in code and by name: a manager built with the default namespace and one opened by
     * name (as the CLI and the starter do) in {@code leasebox} lock the same names; another namespace locks others.
     */
    @Test
    void aManagerBuiltInCodeAndOneOpenedByNameInOneNamespaceContendForOneLease() {
        List<String> keys = keys("by-name", 2);
        Map<String, String> options = Map.of("cluster-name", cluster.clusterName, "session-ttl", SESSION_TTL.toSeconds() + "s",
                "heartbeat", HEARTBEAT.toSeconds() + "s");
        String address = String.join(",", cluster.addresses());
        try (LeaseManager byName = new HazelcastLeaseBackend().open(
                     new LeaseBackendSettings(address, LeaseBackendSettings.DEFAULT_NAMESPACE, TTL, options));
             LeaseManager elsewhere = new HazelcastLeaseBackend().open(new LeaseBackendSettings(address, "other", TTL, options))) {
            List<Lease> held = onMember.acquire(new LeaseRequest(keys, "in-code", TTL));
            assertThat(held).hasSize(keys.size());
            assertThat(byName.acquire(new LeaseRequest(keys, "by-name", TTL))).as("same namespace: held in code").isEmpty();
            List<Lease> other = elsewhere.acquire(new LeaseRequest(keys, "other", TTL));
            assertThat(other).as("another namespace locks other names").hasSize(keys.size());

            onMember.release(held);
            List<Lease> next = byName.acquire(new LeaseRequest(keys, "by-name", TTL));
            assertThat(next).as("released in code, granted by name").hasSize(keys.size());
            byName.release(next);
            elsewhere.release(other);
        }
    }

    @Test
    void clientFromAYamlFileHoldsLeases(@org.junit.jupiter.api.io.TempDir Path dir) throws IOException {
        Path file = dir.resolve("hazelcast-client.yaml");
        Files.writeString(file, "hazelcast-client:\n  cluster-name: " + cluster.clusterName + "\n  network:\n    cluster-members:\n"
                + cluster.addresses().stream().map(a -> "      - " + a + "\n").reduce("", String::concat));
        List<String> keys = keys("yaml", 2);
        try (HazelcastLeaseManager client = HazelcastLeaseManager.start(HazelcastLeaseConfig.clientFromFile(file)
                .cpSession(SESSION_TTL, HEARTBEAT).build())) {
            assertThat(client.acquire(new LeaseRequest(keys, "yaml-owner", TTL))).hasSize(2);
            assertThat(client.describe()).contains("client").contains(cluster.clusterName);
        }
    }

    @Test
    void clientOfAnUnreachableClusterFailsWithinTheConnectTimeoutNamingTheAddress() {
        String address = "127.0.0.1:" + LoopbackPorts.free();
        HazelcastLeaseConfig config = HazelcastLeaseConfig.client(List.of(address), "nobody-home")
                .connectTimeout(Duration.ofSeconds(2)).build();

        assertThatThrownBy(() -> HazelcastLeaseManager.start(config))
                .isInstanceOf(LeaseManagerException.class)
                .hasMessageContaining(address).hasMessageContaining("unreachable within PT2S")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    }

    @Test
    void aLeaseTtlLongerThanTheCpSessionAllowsIsRefusedAtStartAndPerRequest() {
        assertThatThrownBy(() -> HazelcastLeaseManager.start(clientConfig().leaseTtl(SESSION_TTL).build()))
                .isInstanceOf(LeaseManagerException.class)
                .hasMessageContaining("leaseTtl PT10S exceeds the CP session TTL minus heartbeat (PT9S")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));

        assertThatThrownBy(() -> onMember.acquire(new LeaseRequest(keys("long", 1), "greedy", SESSION_TTL)))
                .isInstanceOf(LeaseManagerException.class)
                .hasMessageContaining("request ttl PT10S exceeds");
    }

    private static List<String> keys(String prefix, int count) {
        String run = UUID.randomUUID().toString().substring(0, 8);
        return java.util.stream.IntStream.range(0, count).mapToObj(i -> "client-it-" + prefix + "-" + run + "-" + i).toList();
    }
}
