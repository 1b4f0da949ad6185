package dev.leasebox.lease;

import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * A batched lease SPI over an external coordinator (ZooKeeper, Redis, Hazelcast) or memory.
 *
 * <h2>Contract (every implementation passes {@code LeaseManagerContract})</h2>
 * <ul>
 *   <li><b>Mutual exclusion.</b> While a lease on a key is unexpired by the coordinator's clock, no
 *       other grant of that key exists.</li>
 *   <li><b>Fences only grow.</b> Every grant of a key carries a fence strictly greater than every
 *       earlier grant of that key, across expiry, release and re-grant. (A manager whose coordinator
 *       can lose data documents how it keeps this, see {@link #raiseFenceFloor(long)}.)</li>
 *   <li><b>Batches.</b> {@link #acquire}, {@link #renew} and {@link #release} each cost one round trip
 *       to the coordinator per call, whatever the number of keys; a call grants, renews or releases
 *       a subset and says which in its result.</li>
 *   <li><b>Stale callers change nothing.</b> Renew or release of a lease that is no longer held with
 *       that exact fence by that owner leaves the coordinator untouched and is absent from the result.</li>
 *   <li><b>Expiry.</b> An expired lease becomes grantable to anyone.</li>
 *   <li><b>Loss is reported.</b> A manager tells its {@link LeaseLossListener}s as soon as it learns
 *       that leases are lost (session expiry, failed renewal, lost connection).</li>
 * </ul>
 *
 * <p>Methods throw {@link LeaseManagerException} when the coordinator cannot be reached; the
 * message names the address tried.
 */
public interface LeaseManager extends AutoCloseable {

    /**
     * Tries to lease the keys of the request; returns the leases granted, a subset of the keys of at
     * most {@link LeaseRequest#maxGrants()}, in no particular order. Keys already held by anyone
     * (including this owner) are not granted. When at least {@code maxGrants} of the keys are free,
     * {@code maxGrants} are granted; which ones is the manager's choice, in request order where it can.
     */
    List<Lease> acquire(LeaseRequest request);

    /**
     * Extends each lease by its ttl, from the moment this call is sent; returns the leases still
     * held, with their new local deadlines. A lease absent from the result is lost and has been
     * reported to the listeners.
     */
    List<Lease> renew(Collection<Lease> leases);

    /**
     * Releases each lease still held with its exact fence; returns the leases that were released.
     * A lease absent from the result was not held any more and nothing changed for it.
     */
    List<Lease> release(Collection<Lease> leases);

    /** Registers a listener told of lost and at-risk leases. */
    void addLeaseLossListener(LeaseLossListener listener);

    /**
     * Makes every future fence strictly greater than {@code floor}, atomically on the coordinator.
     *
     * <p>Used where the coordinator's fence counter can go backwards (Redis restarted without
     * persistence, failover to a lagging replica): the drain raises the floor to the outbox's
     * highest recorded fence at start, and again whenever the store refuses a claim because its
     * fence is not above the row's high-water mark. Fencing never depends on this for safety (the
     * store refuses such claims regardless); it restores progress.
     *
     * @return true when the manager supports and applied it; false when its fences cannot go
     *         backwards by design or cannot be raised (then the default does nothing)
     */
    default boolean raiseFenceFloor(long floor) {
        return false;
    }

    /**
     * This manager, or one it decorates, as {@code capability} where it offers it: optional knowledge a
     * caller may use to choose keys or skip work ({@link PeerRanking}, {@link LapsingLeases}), never
     * something the lease contract depends on. Decorators ({@link ForwardingLeaseManager}) answer for
     * themselves first, then ask the manager they decorate. By default: this manager, if it implements
     * {@code capability}.
     */
    default <T> Optional<T> as(Class<T> capability) {
        return capability.isInstance(this) ? Optional.of(capability.cast(this)) : Optional.empty();
    }

    /** One line naming the backend and its address, for logs and error messages. */
    String describe();

    /** Releases coordinator resources; leases still held expire or are released as the backend allows. */
    @Override
    void close();
}
