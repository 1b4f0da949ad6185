package dev.leasebox.cli.embedded;

import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * Hazelcast CP members in this JVM, for the demo and local trials: bound to 127.0.0.1, multicast
 * off, TCP-IP join to an explicit member list, a short CP session TTL (so a dead holder's locks are
 * freed in seconds, not the default five minutes: 10 s with a 1 s heartbeat unless given). Stopped with {@code terminate()}: a graceful
 * shutdown of CP members can take minutes. Never for production.
 */
final class EmbeddedCpMembers implements EmbeddedCoordinator {

    static final Duration SESSION_TTL = Duration.ofSeconds(10);
    static final Duration HEARTBEAT = Duration.ofSeconds(1);

    private final List<HazelcastInstance> members;
    private final List<String> allAddresses;

    private final String clusterName;
    private final Duration sessionTtl;
    private final Duration heartbeat;

    private EmbeddedCpMembers(String clusterName, List<HazelcastInstance> members, List<String> allAddresses,
                              Duration sessionTtl, Duration heartbeat) {
        this.clusterName = clusterName;
        this.members = members;
        this.allAddresses = allAddresses;
        this.sessionTtl = sessionTtl;
        this.heartbeat = heartbeat;
    }

    /**
     * Starts the members on {@code localPorts} (in parallel: CP discovery waits for all CP members) of a
     * cluster whose members are {@code allPorts} on 127.0.0.1, with this CP session timing (whole
     * seconds; the TTL above the heartbeat). A crashed client's locks are freed when its session
     * expires: {@code sessionTtl} after its last heartbeat, found by the CP leader's check once a second.
     */
    static EmbeddedCpMembers start(String clusterName, List<Integer> localPorts, List<Integer> allPorts,
                                   Duration sessionTtl, Duration heartbeat) {
        // the CLI's class path holds the Hazelcast it is built with, whose community edition has the CP Subsystem
        if (heartbeat.toSeconds() < 1 || sessionTtl.compareTo(heartbeat) <= 0 || sessionTtl.toMillis() % 1000 != 0
                || heartbeat.toMillis() % 1000 != 0) {
            throw new IllegalArgumentException("CP session TTL " + sessionTtl + " and heartbeat " + heartbeat
                    + " must be whole seconds, the heartbeat at least 1 s and the TTL above it");
        }
        List<HazelcastInstance> started = Collections.synchronizedList(new ArrayList<>());
        List<Thread> starters = new ArrayList<>();
        List<RuntimeException> failures = Collections.synchronizedList(new ArrayList<>());
        for (int port : localPorts) {
            Config config = memberConfig(clusterName, port, allPorts, 3, sessionTtl, heartbeat);
            Thread starter = new Thread(() -> {
                try {
                    started.add(Hazelcast.newHazelcastInstance(config));
                } catch (RuntimeException e) {
                    failures.add(e);
                }
            }, "leasebox-hazelcast-start-" + port);
            starters.add(starter);
            starter.start();
        }
        try {
            for (Thread starter : starters) {
                starter.join();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        EmbeddedCpMembers members = new EmbeddedCpMembers(clusterName, new ArrayList<>(started),
                allPorts.stream().map(p -> "127.0.0.1:" + p).toList(), sessionTtl, heartbeat);
        if (!failures.isEmpty() || started.size() != localPorts.size()) {
            members.close();
            throw new IllegalStateException("Hazelcast members on 127.0.0.1 ports " + localPorts + " did not start: "
                    + (failures.isEmpty() ? "interrupted" : failures.get(0).getMessage()));
        }
        return members;
    }

    /**
     * A member of {@code clusterName} on 127.0.0.1:{@code port} joining {@code memberPorts} by TCP-IP, with this CP
     * session timing, and without Hazelcast's metrics: nothing reads an embedded member's metrics, and collecting and
     * publishing them to JMX every 5 s made up about a fifth of an idle member's CPU time.
     */
    static Config memberConfig(String clusterName, int port, List<Integer> memberPorts, int cpMemberCount,
                               Duration sessionTtl, Duration heartbeat) {
        Config config = new Config();
        config.setClusterName(clusterName);
        config.setInstanceName(clusterName + "-" + port);
        config.setProperty("hazelcast.logging.type", "slf4j");
        config.setProperty("hazelcast.phone.home.enabled", "false");
        config.setProperty("hazelcast.shutdownhook.enabled", "false");
        config.getMetricsConfig().setEnabled(false);
        config.getNetworkConfig().setPort(port).setPortAutoIncrement(false);
        config.getNetworkConfig().getInterfaces().setEnabled(true).addInterface("127.0.0.1");
        config.getNetworkConfig().setPublicAddress("127.0.0.1:" + port);
        JoinConfig join = config.getNetworkConfig().getJoin();
        join.getMulticastConfig().setEnabled(false);
        join.getAutoDetectionConfig().setEnabled(false);
        // Loopback members answer at once or not at all: a 1 s connection timeout (default 5 s) and
        // Raft elections of 0.5 s with 1 s leader heartbeats (defaults 2 s and 5 s) form the CP group
        // in about 8 s instead of 15 s, and notice a killed CP leader in 5 s instead of 25 s.
        join.getTcpIpConfig().setEnabled(true).setConnectionTimeoutSeconds(1);
        memberPorts.forEach(p -> join.getTcpIpConfig().addMember("127.0.0.1:" + p));
        config.getCPSubsystemConfig()
                .setCPMemberCount(cpMemberCount)
                .setSessionTimeToLiveSeconds((int) sessionTtl.toSeconds())
                .setSessionHeartbeatIntervalSeconds((int) heartbeat.toSeconds())
                .getRaftAlgorithmConfig().setLeaderElectionTimeoutInMillis(500).setLeaderHeartbeatPeriodInMillis(1000);
        return config;
    }

    @Override
    public Map<String, String> clientOptions() {
        return Map.of("cluster-name", clusterName, "session-ttl", sessionTtl.toSeconds() + "s",
                "heartbeat", heartbeat.toSeconds() + "s");
    }

    @Override
    public String address() {
        return String.join(",", allAddresses);
    }

    @Override
    public void close() {
        for (HazelcastInstance member : members) {
            try {
                member.getLifecycleService().terminate();
            } catch (RuntimeException alreadyGone) {
                // terminating a member that already left: nothing to stop
            }
        }
    }
}
