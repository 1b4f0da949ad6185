package dev.leasebox.lease.hazelcast;

import com.hazelcast.config.cp.CPSubsystemConfig;
import com.hazelcast.core.HazelcastInstance;
import dev.leasebox.lease.LeaseManagerException;

import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Start-up checks that the instance reaches a real, Raft-backed CP Subsystem, and its session timing. */
final class CpSubsystemCheck {

    private CpSubsystemCheck() {
    }

    /** A member reads its CP session timing from its own config, and refuses cp-member-count 0. */
    static CpSessionTiming memberTiming(HazelcastInstance member) {
        CPSubsystemConfig cp = member.getConfig().getCPSubsystemConfig();
        if (cp.getCPMemberCount() == 0) {
            throw new LeaseManagerException(HazelcastConnector.noCpSubsystem("member " + member.getName()));
        }
        return new CpSessionTiming(Duration.ofSeconds(cp.getSessionTimeToLiveSeconds()),
                Duration.ofSeconds(cp.getSessionHeartbeatIntervalSeconds()), "from the member config");
    }

    static String clusterName(HazelcastInstance instance, HazelcastLeaseConfig config) {
        try {
            return instance.getConfig().getClusterName();
        } catch (RuntimeException clientCannotReadIt) {
            return config.clusterName().isEmpty() ? "?" : config.clusterName();
        }
    }

    /**
     * Without CP members, FencedLock silently runs in "unsafe mode" on partitions, and a client cannot
     * read the members' config to tell. A lock named without a group then reports its own name as its
     * group instead of the CP default group, which is what this probe checks (on an owner thread,
     * bounded by the connect timeout, since CP discovery may still be waiting for members).
     */
    static void requireRaft(HazelcastInstance instance, OwnerThread thread, HazelcastLeaseConfig config, String description) {
        String probeName = config.namePrefix() + "cp-probe";
        String group;
        try {
            group = thread.submit(() -> instance.getCPSubsystem().getLock(probeName).getGroupId().getName())
                    .get(config.connectTimeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new LeaseManagerException("the CP Subsystem of " + description + " did not answer within " + config.connectTimeout()
                    + ": fewer than cp-member-count CP members have joined, or the CP group lost its majority");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LeaseManagerException("interrupted while checking the CP Subsystem of " + description, e);
        } catch (ExecutionException e) {
            throw new LeaseManagerException("checking the CP Subsystem of " + description + " failed: " + e.getCause(), e.getCause());
        }
        if (!"default".equals(group)) {
            throw new LeaseManagerException(HazelcastConnector.noCpSubsystem("cluster of " + description));
        }
    }
}
