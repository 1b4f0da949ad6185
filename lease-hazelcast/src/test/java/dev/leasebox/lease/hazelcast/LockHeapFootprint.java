package dev.leasebox.lease.hazelcast;

import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseRequest;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

/**
 * Measures the heap that live FencedLocks cost three in-process CP members (not a test: run by hand,
 * the figures go to the module README). Usage: {@code LockHeapFootprint [locks]}.
 */
public final class LockHeapFootprint {

    private LockHeapFootprint() {
    }

    public static void main(String[] args) {
        int count = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
        Duration ttl = Duration.ofSeconds(290);
        try (CpCluster cluster = CpCluster.start(3, 3, 300);
             HazelcastLeaseManager manager = HazelcastLeaseManager.using(cluster.members.get(0),
                     HazelcastLeaseConfig.existingInstance().operationTimeout(Duration.ofMinutes(5)).build())) {
            warmUp(manager);
            long before = usedHeapAfterGc();
            long acquireNanos = 0;
            long renewNanos = 0;
            long renewed = 0;
            List<Lease> held = new ArrayList<>();
            List<String> keys = IntStream.range(0, count).mapToObj(i -> "footprint-" + i).toList();
            for (int from = 0; from < count; from += 500) {
                long t0 = System.nanoTime();
                held.addAll(manager.acquire(new LeaseRequest(keys.subList(from, Math.min(count, from + 500)), "footprint", ttl)));
                long t1 = System.nanoTime();
                renewed += manager.renew(held.subList(held.size() - Math.min(held.size(), 500), held.size())).size();
                renewNanos += System.nanoTime() - t1;
                acquireNanos += t1 - t0;
            }
            double acquireSeconds = acquireNanos / 1e9;
            double renewSeconds = renewNanos / 1e9;
            long started;
            long live = usedHeapAfterGc();
            started = System.nanoTime();
            List<Lease> released = manager.release(held);
            double releaseSeconds = (System.nanoTime() - started) / 1e9;
            long afterRelease = usedHeapAfterGc();
            System.out.printf("FOOTPRINT locks %d (held %d, released %d), 3 CP members in one JVM%n", count, held.size(), released.size());
            System.out.printf("FOOTPRINT heap live locks: +%.1f MB (%.1f KB per lock)%n", mb(live - before), (live - before) / 1024.0 / count);
            System.out.printf("FOOTPRINT heap after unlock, not destroyed: +%.1f MB%n", mb(afterRelease - before));
            System.out.printf("FOOTPRINT acquire %.0f locks/s, renew %.0f checks/s, release %.0f unlocks/s, 4 owner threads%n",
                    count / acquireSeconds, renewed / renewSeconds, count / releaseSeconds);
        }
    }

    private static void warmUp(HazelcastLeaseManager manager) {
        List<Lease> warm = manager.acquire(new LeaseRequest(List.of("footprint-warm-1", "footprint-warm-2"), "warm", Duration.ofSeconds(9)));
        manager.release(warm);
    }

    private static long usedHeapAfterGc() {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    private static double mb(long bytes) {
        return bytes / 1024.0 / 1024.0;
    }
}
