package dev.leasebox.lease.contract;

import dev.leasebox.lease.LeaseManager;

import java.time.Duration;

/**
 * The lease contract every {@link LeaseManager} passes: extend this class in the backend's test and
 * implement {@link #newManager()}.
 *
 * <p>Hooks (override where the backend differs):
 * <ul>
 *   <li>{@link #newManager()} — a new, independent client of the backend under test, as another node
 *       would have; the kit closes every manager it made after each test.</li>
 *   <li>{@link #leaseTtl()} — the ttl the kit requests in expiry tests (default 2 s); a backend whose
 *       coordinator fixes the duration returns the one it enforces.</li>
 *   <li>{@link #advanceTime(Duration)} — lets time pass on the coordinator's clock; real backends keep
 *       the default (no-op: real time passes while the kit polls with Awaitility).</li>
 *   <li>{@link #expiryTimeout()} — how long the kit waits for a lease to expire (default ttl × 2 + 3 s).</li>
 * </ul>
 * Different owners are always exercised through different managers, the way different nodes would
 * be; a backend may bind ownership to its client session (Hazelcast) and still pass.
 */
public abstract class LeaseManagerContract {

    /** A new client of the backend under test. */
    protected abstract LeaseManager newManager();

    /** The lease ttl for expiry tests. */
    protected Duration leaseTtl() {
        return Duration.ofSeconds(2);
    }

    /** Lets {@code duration} pass on the coordinator's clock (no-op for real time). */
    protected void advanceTime(Duration duration) {
    }

    /** How long to wait for an unrenewed lease to become grantable again. */
    protected Duration expiryTimeout() {
        return leaseTtl().multipliedBy(2).plusSeconds(3);
    }
}
