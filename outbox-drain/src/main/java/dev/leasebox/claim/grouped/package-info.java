/**
 * Grouped row leases: consecutive rows share one lease of the coordinator
 * ({@link dev.leasebox.claim.grouped.GroupedLeaseManager}), as {@link dev.leasebox.claim.LeaseGrouping} says.
 *
 * <p><b>Internal:</b> not API. Its types are public only so that other Leasebox packages can reach them; they
 * may change or go in any release without notice. Build drains with {@link dev.leasebox.Leasebox}.
 */
package dev.leasebox.claim.grouped;
