/**
 * The outbox table as a user meets it: {@link dev.leasebox.jdbc.OutboxWriter} enqueues entries inside the
 * caller's transaction, {@link dev.leasebox.jdbc.LeaseboxSchema} creates and migrates the table,
 * {@link dev.leasebox.jdbc.OutboxMaintenance} purges and re-drives, {@link dev.leasebox.jdbc.OutboxTableStatus}
 * reads the backlog, and {@link dev.leasebox.jdbc.TableName} and {@link dev.leasebox.jdbc.DatabaseKind} name
 * what they work on.
 *
 * <p>The SQL of each database ({@code jdbc.dialect}), the claim store over the table ({@code jdbc.store}) and
 * the leases kept in the database ({@code jdbc.lease}) are internal sub-packages.
 */
package dev.leasebox.jdbc;
