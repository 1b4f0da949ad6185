package dev.leasebox.lease;

import java.util.List;
import java.util.Objects;

/**
 * Leases a manager has learned it no longer holds, and why.
 *
 * @param leases the leases lost (never empty)
 * @param cause  why they were lost
 * @param detail a human-readable explanation naming the coordinator
 */
public record LeaseLoss(List<Lease> leases, Cause cause, String detail) {

    /** Why leases were lost. */
    public enum Cause {
        /** The coordinator session that held them expired (ZooKeeper session, Hazelcast CP session). */
        SESSION_EXPIRED,
        /** The connection to the coordinator was lost for longer than the leases could survive. */
        CONNECTION_LOST,
        /** A renewal found another holder or a different fence. */
        RENEWAL_REFUSED,
        /** The local deadline passed before a renewal succeeded. */
        DEADLINE_PASSED
    }

    public LeaseLoss {
        leases = List.copyOf(leases);
        Objects.requireNonNull(cause, "cause");
        Objects.requireNonNull(detail, "detail");
        if (leases.isEmpty()) {
            throw new IllegalArgumentException("a LeaseLoss must name at least one lease");
        }
    }
}
