package dev.leasebox.lease.hazelcast;

import dev.leasebox.testkit.LoopbackPorts;
import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * Real Hazelcast members in this JVM forming a CP Subsystem: bound to 127.0.0.1, multicast off,
 * TCP-IP join to explicit 127.0.0.1 members on free ports, a short CP session TTL. Closed with
 * {@code terminate()}: a graceful shutdown of CP members takes minutes.
 */
final class CpCluster implements AutoCloseable {

    static final int SESSION_TTL_SECONDS = 10;
    static final int HEARTBEAT_SECONDS = 1;

    final String clusterName = "leasebox-it-" + UUID.randomUUID().toString().substring(0, 8);
    final List<Integer> ports = new ArrayList<>();
    final List<HazelcastInstance> members = new ArrayList<>();
    private final int cpMemberCount;
    private final int sessionTtlSeconds;

    private CpCluster(int size, int cpMemberCount, int sessionTtlSeconds) {
        this.cpMemberCount = cpMemberCount;
        this.sessionTtlSeconds = sessionTtlSeconds;
        ports.addAll(LoopbackPorts.free(size)); // all different: members named by port must not collide
    }

    /** Three CP members, started in parallel (CP discovery waits for all three). */
    static CpCluster startThreeCpMembers() {
        return start(3, 3);
    }

    /** {@code size} members with {@code cpMemberCount} (0 = no CP Subsystem). */
    static CpCluster start(int size, int cpMemberCount) {
        return start(size, cpMemberCount, SESSION_TTL_SECONDS);
    }

    /** Like {@link #start(int, int)} with another CP session TTL (heartbeat stays 1 s). */
    static CpCluster start(int size, int cpMemberCount, int sessionTtlSeconds) {
        CpCluster cluster = new CpCluster(size, cpMemberCount, sessionTtlSeconds);
        try {
            List<Thread> starters = new ArrayList<>();
            List<HazelcastInstance> started = java.util.Collections.synchronizedList(new ArrayList<>());
            for (int i = 0; i < size; i++) {
                Config config = cluster.memberConfig(cluster.ports.get(i));
                Thread starter = new Thread(() -> started.add(Hazelcast.newHazelcastInstance(config)));
                starters.add(starter);
                starter.start();
            }
            for (Thread starter : starters) {
                starter.join();
            }
            cluster.members.addAll(started);
            if (started.size() != size) {
                throw new IllegalStateException("only " + started.size() + " of " + size + " members started");
            }
            return cluster;
        } catch (RuntimeException | InterruptedException e) {
            cluster.close();
            throw new IllegalStateException("CP cluster did not start: " + e, e);
        }
    }

    /** The member config every member of this cluster (in this JVM or another) uses, on {@code port}. */
    Config memberConfig(int port) {
        Config config = memberConfig(clusterName, port, ports, cpMemberCount);
        config.getCPSubsystemConfig().setSessionTimeToLiveSeconds(sessionTtlSeconds);
        return config;
    }

    /** A member of {@code clusterName} on 127.0.0.1:{@code port} joining {@code memberPorts} by TCP-IP. */
    static Config memberConfig(String clusterName, int port, List<Integer> memberPorts, int cpMemberCount) {
        Config config = new Config();
        config.setClusterName(clusterName);
        config.setInstanceName(clusterName + "-" + port);
        config.setProperty("hazelcast.logging.type", "slf4j");
        config.setProperty("hazelcast.phone.home.enabled", "false");
        config.setProperty("hazelcast.shutdownhook.enabled", "false");
        config.getNetworkConfig().setPort(port).setPortAutoIncrement(false);
        config.getNetworkConfig().getInterfaces().setEnabled(true).addInterface("127.0.0.1");
        config.getNetworkConfig().setPublicAddress("127.0.0.1:" + port);
        JoinConfig join = config.getNetworkConfig().getJoin();
        join.getMulticastConfig().setEnabled(false);
        join.getAutoDetectionConfig().setEnabled(false);
        // loopback members answer at once or not at all: short connection timeout and Raft elections
        join.getTcpIpConfig().setEnabled(true).setConnectionTimeoutSeconds(1);
        memberPorts.forEach(p -> join.getTcpIpConfig().addMember("127.0.0.1:" + p));
        config.getCPSubsystemConfig()
                .setCPMemberCount(cpMemberCount)
                .setSessionTimeToLiveSeconds(SESSION_TTL_SECONDS)
                .setSessionHeartbeatIntervalSeconds(HEARTBEAT_SECONDS)
                .getRaftAlgorithmConfig().setLeaderElectionTimeoutInMillis(500).setLeaderHeartbeatPeriodInMillis(1000);
        return config;
    }

    /**
     * Starts {@code count} new members on fresh ports that join the members still running, in
     * parallel; the new members become CP members only by a reset of the CP Subsystem. Fresh ports,
     * because a terminated member's port may stay bound for a while.
     */
    List<HazelcastInstance> startReplacements(int count) throws InterruptedException {
        List<Integer> running = members.stream()
                .map(member -> member.getCluster().getLocalMember().getAddress().getPort()).toList();
        List<Integer> fresh = LoopbackPorts.free(count);
        List<Integer> joinPorts = new ArrayList<>(running);
        joinPorts.addAll(fresh);
        List<Thread> starters = new ArrayList<>();
        List<HazelcastInstance> started = java.util.Collections.synchronizedList(new ArrayList<>());
        List<RuntimeException> failures = java.util.Collections.synchronizedList(new ArrayList<>());
        for (int port : fresh) {
            Config config = memberConfig(clusterName, port, joinPorts, cpMemberCount);
            config.getCPSubsystemConfig().setSessionTimeToLiveSeconds(sessionTtlSeconds);
            Thread starter = new Thread(() -> {
                try {
                    started.add(Hazelcast.newHazelcastInstance(config));
                } catch (RuntimeException e) {
                    failures.add(e);
                }
            });
            starters.add(starter);
            starter.start();
        }
        for (Thread starter : starters) {
            starter.join();
        }
        members.addAll(started);
        ports.addAll(fresh);
        if (!failures.isEmpty()) {
            throw new IllegalStateException(failures.size() + " of " + count + " new members did not start", failures.get(0));
        }
        return List.copyOf(started);
    }

    /** "127.0.0.1:port" of every member. */
    List<String> addresses() {
        return ports.stream().map(port -> "127.0.0.1:" + port).toList();
    }

    @Override
    public void close() {
        for (HazelcastInstance member : members) {
            try {
                member.getLifecycleService().terminate();
            } catch (RuntimeException ignored) {
                // already gone
            }
        }
        members.clear();
    }
}
