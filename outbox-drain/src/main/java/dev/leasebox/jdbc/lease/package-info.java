/**
 * Leases kept in the database itself: {@link dev.leasebox.jdbc.lease.JdbcLeaseManager} over the table's
 * lease table (the slot leases of partition claims without a coordinator), the slot store and worker group
 * of partition leases, and the claim-style registry through which a table's workers refuse a worker they
 * cannot exclude.
 *
 * <p><b>Internal:</b> not API. Its types are public only so that other Leasebox packages can reach them; they
 * may change or go in any release without notice. Build drains with {@link dev.leasebox.Leasebox}.
 */
package dev.leasebox.jdbc.lease;
