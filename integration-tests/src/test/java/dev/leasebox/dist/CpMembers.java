package dev.leasebox.dist;

import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import dev.leasebox.testkit.LoopbackPorts;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Hazelcast CP members in this JVM whose members the test can terminate, replace, and whose CP
 * Subsystem it can reset: what the embedded coordinator of {@code LeaseBackends} does not hand out.
 * The member settings are those of the embedded members ({@code EmbeddedCpMembers}, package-private in
 * lease-hazelcast): 127.0.0.1, TCP-IP join, three CP members, CP session TTL 10 s with a 1 s
 * heartbeat, 0.5 s Raft elections. Members are started in parallel (CP discovery waits for all three)
 * and stopped with {@code terminate()}: a graceful shutdown of CP members can take minutes.
 */
final class CpMembers implements AutoCloseable {

    private static final int CP_MEMBER_COUNT = 3;
    private static final int SESSION_TTL_SECONDS = 10;
    private static final int HEARTBEAT_SECONDS = 1;

    private final String clusterName = "leasebox-reset-" + UUID.randomUUID().toString().substring(0, 8);
    private final List<HazelcastInstance> members = Collections.synchronizedList(new ArrayList<>());

    private CpMembers() {
    }

    /** Three CP members on free ports. */
    static CpMembers startThree() {
        CpMembers cluster = new CpMembers();
        try {
            List<Integer> ports = LoopbackPorts.free(CP_MEMBER_COUNT);
            cluster.members.addAll(cluster.startAll(ports, ports));
            return cluster;
        } catch (RuntimeException e) {
            cluster.close();
            throw e;
        }
    }

    /** Terminates the members at these indexes (of {@link #addresses()}) at once, as a crash would. */
    void terminate(int... indexes) {
        List<HazelcastInstance> victims = new ArrayList<>();
        for (int index : indexes) {
            victims.add(members.get(index));
        }
        for (HazelcastInstance victim : victims) {
            victim.getLifecycleService().terminate();
            members.remove(victim);
        }
    }

    /**
     * Starts {@code count} members on fresh ports (a terminated member's port may stay bound a while)
     * joining those still running; they become CP members only through {@link #resetCpSubsystem}.
     */
    void startReplacements(int count) {
        List<Integer> fresh = LoopbackPorts.free(count);
        List<Integer> join = new ArrayList<>(ports());
        join.addAll(fresh);
        members.addAll(startAll(fresh, join));
    }

    /**
     * Resets the CP Subsystem from the oldest member: its Raft logs are discarded and its groups created
     * anew over the members running now. The only way back after the CP group lost its majority.
     */
    void resetCpSubsystem(Duration timeout) {
        try {
            members.get(0).getCPSubsystem().getCPSubsystemManagementService().reset()
                    .toCompletableFuture().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while resetting the CP Subsystem", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("the CP Subsystem reset did not complete in " + timeout + ": " + e, e);
        }
    }

    /** "127.0.0.1:port" of every running member, comma-separated: a client's address. */
    String address() {
        return String.join(",", ports().stream().map(port -> "127.0.0.1:" + port).toList());
    }

    /** What a client needs besides the address: the cluster name and the members' CP session timing. */
    Map<String, String> clientOptions() {
        return Map.of("cluster-name", clusterName, "session-ttl", SESSION_TTL_SECONDS + "s", "heartbeat", HEARTBEAT_SECONDS + "s");
    }

    private List<Integer> ports() {
        synchronized (members) {
            return members.stream().map(member -> member.getCluster().getLocalMember().getAddress().getPort()).toList();
        }
    }

    private List<HazelcastInstance> startAll(List<Integer> ports, List<Integer> join) {
        List<HazelcastInstance> started = Collections.synchronizedList(new ArrayList<>());
        List<RuntimeException> failures = Collections.synchronizedList(new ArrayList<>());
        List<Thread> starters = new ArrayList<>();
        for (int port : ports) {
            Config config = memberConfig(port, join);
            Thread starter = new Thread(() -> {
                try {
                    started.add(Hazelcast.newHazelcastInstance(config));
                } catch (RuntimeException e) {
                    failures.add(e);
                }
            }, "cp-member-start-" + port);
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
        if (!failures.isEmpty() || started.size() != ports.size()) {
            started.forEach(member -> member.getLifecycleService().terminate());
            throw new IllegalStateException("Hazelcast members on 127.0.0.1 ports " + ports + " did not start: "
                    + (failures.isEmpty() ? "interrupted" : failures.get(0).getMessage()));
        }
        return started;
    }

    private Config memberConfig(int port, List<Integer> join) {
        Config config = new Config();
        config.setClusterName(clusterName);
        config.setInstanceName(clusterName + "-" + port);
        config.setProperty("hazelcast.logging.type", "slf4j");
        config.setProperty("hazelcast.phone.home.enabled", "false");
        config.setProperty("hazelcast.shutdownhook.enabled", "false");
        config.getNetworkConfig().setPort(port).setPortAutoIncrement(false);
        config.getNetworkConfig().getInterfaces().setEnabled(true).addInterface("127.0.0.1");
        config.getNetworkConfig().setPublicAddress("127.0.0.1:" + port);
        JoinConfig joinConfig = config.getNetworkConfig().getJoin();
        joinConfig.getMulticastConfig().setEnabled(false);
        joinConfig.getAutoDetectionConfig().setEnabled(false);
        joinConfig.getTcpIpConfig().setEnabled(true).setConnectionTimeoutSeconds(1);
        join.forEach(p -> joinConfig.getTcpIpConfig().addMember("127.0.0.1:" + p));
        config.getCPSubsystemConfig()
                .setCPMemberCount(CP_MEMBER_COUNT)
                .setSessionTimeToLiveSeconds(SESSION_TTL_SECONDS)
                .setSessionHeartbeatIntervalSeconds(HEARTBEAT_SECONDS)
                .getRaftAlgorithmConfig().setLeaderElectionTimeoutInMillis(500).setLeaderHeartbeatPeriodInMillis(1000);
        return config;
    }

    @Override
    public void close() {
        for (HazelcastInstance member : List.copyOf(members)) {
            try {
                member.getLifecycleService().terminate();
            } catch (RuntimeException alreadyGone) {
                // terminating a member that already left: nothing to stop
            }
        }
        members.clear();
    }
}
