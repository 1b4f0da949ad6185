package dev.leasebox.lease.hazelcast;

import dev.leasebox.lease.spi.LoopbackPorts;
import com.hazelcast.config.Config;
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

    static final int SESSION_TTL_SECONDS = (int) EmbeddedCpMembers.SESSION_TTL.toSeconds();
    static final int HEARTBEAT_SECONDS = (int) EmbeddedCpMembers.HEARTBEAT.toSeconds();

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
        return EmbeddedCpMembers.memberConfig(clusterName, port, memberPorts, cpMemberCount);
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
