package dev.leasebox.lease.zookeeper;

import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseRequest;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * A lease-holding process for tests that kill it: acquires the keys given, prints
 * {@code HELD <fence> <key>} for each, then blocks until killed.
 * Arguments: connect string, session timeout ms, lease ttl ms, keys...
 */
public final class LeaseHoldingWorker {

    private LeaseHoldingWorker() {
    }

    public static void main(String[] args) throws InterruptedException {
        ZooKeeperLeaseManager manager = ZooKeeperLeaseManager.start(
                ZooKeeperTestServers.config(args[0], Duration.ofMillis(Long.parseLong(args[1]))).build());
        List<String> keys = Arrays.asList(args).subList(3, args.length);
        List<Lease> held = manager.acquire(new LeaseRequest(keys, "worker-" + ProcessHandle.current().pid(),
                Duration.ofMillis(Long.parseLong(args[2]))));
        for (Lease lease : held) {
            System.out.println("HELD " + lease.fence() + " " + lease.key());
        }
        System.out.flush();
        new CountDownLatch(1).await();
    }
}
