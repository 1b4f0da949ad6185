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
     * Whether a lease that is never released costs nothing once its ttl has passed: the coordinator
     * forgets it by itself and this client keeps no state for it (Redis: the key expires). Callers may
     * then skip the release of leases nobody will ask for again, such as the lease of a row that
     * became terminal ({@code ReleaseAfterCompletion.NON_TERMINAL}). False by default, and for
     * ZooKeeper (an unreleased lease's EPHEMERAL node lives as long as the session) and Hazelcast (the
     * manager unlocks at the deadline itself: the Raft work moves, it is not saved).
     */
    default boolean unreleasedLeasesLapse() {
        return false;
    }

    /**
     * This manager's rank among the live managers of its namespace, where the coordinator keeps a
     * membership anyway (ZooKeeper: the {@code members} group): answered from state the client keeps
     * current in the background, with no round trip. Empty when the manager has no such view (the
     * default). The claim path uses it to give each worker its own stripe of candidate rows, so that
     * concurrent workers rarely ask for the same keys; see {@link PeerRank} for what it guarantees
     * (nothing about safety).
     */
    default Optional<PeerRank> peerRank() {
        return Optional.empty();
    }

    /**
     * How many consecutive rows this manager leases under one group lease: row keys
     * ({@code LeasedOutboxClaimStore.leaseKey(id)}) with the same {@code id / rowBlock()} that one
     * request asks for are granted with one round trip and share its fence. 1 (the default) when
     * every row is leased on its own. Only the drain's grouping strategy
     * ({@code dev.leasebox.outbox.grouped.GroupedLeaseManager}) answers otherwise; backends keep the
     * default. The claim path then gives each worker a stripe of whole blocks
     * ({@code CandidateStripe}), so that its candidates come in blocks and nobody else's rows share
     * its locks. A hint for choosing keys, like {@link #peerRank()}: the lease contract holds for every
     * key whatever the caller asks for.
     */
    default int rowBlock() {
        return 1;
    }

    /** One line naming the backend and its address, for logs and error messages. */
    String describe();

    /** Releases coordinator resources; leases still held expire or are released as the backend allows. */
    @Override
    void close();
}
