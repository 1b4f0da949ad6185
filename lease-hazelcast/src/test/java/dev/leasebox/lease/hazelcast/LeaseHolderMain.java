package dev.leasebox.lease.hazelcast;

import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseRequest;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * A lease holder in its own JVM, for kill tests: joins as a client or as a (non-CP) member,
 * acquires the keys, prints "HELD key fence" for each, and renews until it is killed.
 *
 * <p>Arguments: {@code client|member clusterName memberPorts(comma) keys(comma) ttlSeconds}, then
 * {@code ownPort} for a member, or optionally {@code sessionTtlSeconds heartbeatSeconds} for a client
 * whose members run another CP session timing than {@link CpCluster}'s. A key whose renewal fails
 * is printed as "LOST key", so a test that finds a live holder's key granted elsewhere can tell a
 * starved holder from a broken lock.
 */
public final class LeaseHolderMain {

    private LeaseHolderMain() {
    }

    public static void main(String[] args) {
        String mode = args[0];
        String clusterName = args[1];
        List<Integer> ports = Arrays.stream(args[2].split(",")).map(Integer::valueOf).toList();
        List<String> keys = List.of(args[3].split(","));
        Duration ttl = Duration.ofSeconds(Long.parseLong(args[4]));
        HazelcastLeaseManager manager;
        if ("member".equals(mode)) {
            int ownPort = Integer.parseInt(args[5]);
            HazelcastInstance member = Hazelcast.newHazelcastInstance(
                    CpCluster.memberConfig(clusterName, ownPort, ports, ports.size()));
            manager = HazelcastLeaseManager.using(member, HazelcastLeaseConfig.existingInstance().leaseTtl(ttl).build());
        } else {
            long sessionTtl = args.length > 6 ? Long.parseLong(args[5]) : CpCluster.SESSION_TTL_SECONDS;
            long heartbeat = args.length > 6 ? Long.parseLong(args[6]) : CpCluster.HEARTBEAT_SECONDS;
            manager = HazelcastLeaseManager.start(HazelcastLeaseConfig
                    .client(ports.stream().map(p -> "127.0.0.1:" + p).toList(), clusterName)
                    .cpSession(Duration.ofSeconds(sessionTtl), Duration.ofSeconds(heartbeat))
                    .leaseTtl(ttl)
                    .build());
        }
        List<Lease> held = manager.acquire(new LeaseRequest(keys, "holder-" + ProcessHandle.current().pid(), ttl));
        for (Lease lease : held) {
            System.out.println("HELD " + lease.key() + " " + lease.fence());
        }
        System.out.println("HOLDING " + held.size());
        System.out.flush();
        while (true) {
            LockSupport.parkNanos(ttl.dividedBy(3).toNanos());
            List<Lease> renewed = manager.renew(held);
            for (Lease lease : held) {
                if (renewed.stream().noneMatch(r -> r.key().equals(lease.key()))) {
                    System.out.println("LOST " + lease.key());
                }
            }
            System.out.flush();
            held = renewed;
        }
    }
}
