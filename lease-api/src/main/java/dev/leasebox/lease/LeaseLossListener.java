package dev.leasebox.lease;

/**
 * Told by a {@link LeaseManager} as soon as it learns that leases are lost or at risk.
 *
 * <p>Callbacks run on a thread of the manager's choosing and must not block: hand work off.
 * A holder that is told its leases are lost must stop acting on them (the drain abandons the
 * affected claims without finalizing them). "At risk" means the manager cannot currently prove it
 * holds anything (for example a suspended ZooKeeper connection): start nothing new under its leases
 * until {@link #connectionRestored(String)}.
 */
@FunctionalInterface
public interface LeaseLossListener {

    /** The leases in {@code loss} are no longer held by this manager. */
    void leasesLost(LeaseLoss loss);

    /** The manager cannot currently prove it holds its leases; no new work should start under them. */
    default void connectionSuspended(String detail) {
    }

    /** The manager has verified its remaining leases again after a suspension. */
    default void connectionRestored(String detail) {
    }
}
