/**
 * How a drain claims, as a user sets it on {@link dev.leasebox.Leasebox}'s builder: what one lease covers
 * ({@link dev.leasebox.claim.Granularity}), whether claims are written before emitting
 * ({@link dev.leasebox.claim.ClaimMode}), which row leases are released after completion
 * ({@link dev.leasebox.claim.ReleaseAfterCompletion}), and how rows share a coordinator's leases
 * ({@link dev.leasebox.claim.LeaseGrouping}).
 *
 * <p>The strategies that carry these settings out are in the sub-packages {@code leased} (row leases),
 * {@code partition} (slot leases) and {@code grouped} (rows sharing a lease); those are internal.
 */
package dev.leasebox.claim;
