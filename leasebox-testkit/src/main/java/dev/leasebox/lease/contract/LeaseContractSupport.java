package dev.leasebox.lease.contract;

import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseManager;
import dev.leasebox.lease.LeaseRequest;
import org.junit.jupiter.api.AfterEach;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;

import static org.awaitility.Awaitility.await;

/**
 * The hooks and helpers of the lease contract kit. Backends do not extend this class directly:
 * they extend {@link LeaseManagerContract}, which inherits every contract test.
 *
 * <p>Every key the kit uses carries a per-test random prefix, so tests can share one coordinator
 * (and one coordinator can be shared with other test runs) without seeing each other's leases.
 * Every manager made through {@link #manager()} is closed after each test, even on failure.
 */
public abstract class LeaseContractSupport {

    private final List<LeaseManager> managers = new ArrayList<>();
    private final String run = UUID.randomUUID().toString().substring(0, 8);
    private int ownerCount;

    /** A new client of the backend under test, as another node would have. */
    protected abstract LeaseManager newManager();

    /** The lease ttl for expiry tests (default 2 s); a backend that fixes the duration returns it. */
    protected Duration leaseTtl() {
        return Duration.ofSeconds(2);
    }

    /**
     * The ttl for tests in which leases must not expire before the test ends, and for the fuzz
     * (default 10 s). A backend that fixes the duration returns the one it enforces.
     */
    protected Duration longLeaseTtl() {
        return Duration.ofSeconds(10);
    }

    /** Lets {@code duration} pass on the coordinator's clock (no-op for real time). */
    protected void advanceTime(Duration duration) {
    }

    /** How long to wait for an unrenewed lease to become grantable again. */
    protected Duration expiryTimeout() {
        return leaseTtl().multipliedBy(2).plusSeconds(3);
    }

    /**
     * The clock the coordinator's time can be read from (default the system clock). A backend
     * with simulated time returns the clock that {@link #advanceTime(Duration)} moves, so that
     * the kit's waits for time to pass complete at once.
     */
    protected Clock coordinatorClock() {
        return Clock.systemUTC();
    }

    /** How many threads (each with its own manager) contend in the fuzz (default 4). */
    protected int fuzzThreads() {
        return 4;
    }

    /** How many acquire attempts each fuzz thread makes (default 40). */
    protected int fuzzRounds() {
        return 40;
    }

    /**
     * The keys both fuzzes contend for (default three keys unique to the test). A backend that treats some
     * keys differently returns those, so the fuzz runs that path too (Hazelcast: {@code row-<id>} keys share
     * lock slots).
     */
    protected List<String> fuzzKeys() {
        return keys("fuzz", 3);
    }

    /** The ttl of the racing fuzz, short enough that holders overrun it and takeovers race (default 400 ms). */
    protected Duration racingTtl() {
        return Duration.ofMillis(400);
    }

    /**
     * How long after a lease's ttl has passed its coordinator may still refuse to grant it again (default 0;
     * ZooKeeper: its clock-skew margin). The racing fuzz holds some leases past ttl plus this, so that
     * takeovers happen.
     */
    protected Duration takeoverDelay() {
        return Duration.ZERO;
    }

    @AfterEach
    void closeManagersMadeByTheKit() {
        RuntimeException first = null;
        for (LeaseManager manager : managers) {
            try {
                manager.close();
            } catch (RuntimeException e) {
                if (first == null) {
                    first = e;
                }
            }
        }
        managers.clear();
        if (first != null) {
            throw first;
        }
    }

    /** A new manager that the kit closes after the test. */
    protected final LeaseManager manager() {
        LeaseManager manager = newManager();
        synchronized (managers) {
            managers.add(manager);
        }
        return manager;
    }

    /** Closes {@code manager} now, as a node shutting down would; the kit does not close it again. */
    protected final void closeManager(LeaseManager manager) {
        synchronized (managers) {
            managers.remove(manager);
        }
        manager.close();
    }

    /** A key unique to this test instance. */
    protected final String key(String name) {
        return "contract-" + run + "-" + name;
    }

    /** {@code count} keys unique to this test instance. */
    protected final List<String> keys(String prefix, int count) {
        List<String> keys = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            keys.add(key(prefix + "-" + i));
        }
        return keys;
    }

    /** An owner name unique to this test instance. */
    protected final synchronized String owner() {
        return "owner-" + run + "-" + (++ownerCount);
    }

    protected final LeaseRequest request(Collection<String> keys, String owner, Duration ttl) {
        return new LeaseRequest(keys, owner, ttl);
    }

    /** Acquires one key that must be free, failing with a readable message otherwise. */
    protected final Lease acquireFree(LeaseManager manager, String key, String owner, Duration ttl) {
        List<Lease> granted = manager.acquire(request(List.of(key), owner, ttl));
        if (granted.size() != 1) {
            throw new AssertionError("expected a free key " + key + " to be granted to " + owner
                    + " by " + manager.describe() + ", got " + granted);
        }
        return granted.get(0);
    }

    /**
     * Lets a lease granted with {@link #leaseTtl()} expire and waits until {@code next} is granted
     * {@code key}; returns that grant.
     */
    protected final Lease regrantAfterExpiry(String key, LeaseManager next, String nextOwner, Duration nextTtl) {
        advanceTime(leaseTtl().plusMillis(1));
        AtomicReference<Lease> grant = new AtomicReference<>();
        await("key " + key + " to become grantable after its lease expired")
                .atMost(expiryTimeout())
                .pollDelay(Duration.ZERO)
                .pollInterval(Duration.ofMillis(100))
                .until(() -> {
                    List<Lease> granted = next.acquire(request(List.of(key), nextOwner, nextTtl));
                    if (granted.isEmpty()) {
                        return false;
                    }
                    grant.set(granted.get(0));
                    return true;
                });
        return grant.get();
    }

    /** Waits until at least {@code duration} has passed on the coordinator's clock. */
    protected final void letTimePass(Duration duration) {
        Clock clock = coordinatorClock();
        Instant target = clock.instant().plus(duration);
        advanceTime(duration);
        await("time to pass by " + duration)
                .atMost(duration.plusSeconds(5))
                .pollDelay(Duration.ZERO)
                .pollInterval(Duration.ofMillis(20))
                .until(() -> !clock.instant().isBefore(target));
    }
}
