/**
 * Partition leases: workers lease a table's <em>slots</em> instead of its rows, so the coordinator
 * leaves the per-row path.
 *
 * <p>An entry's slot is a stable hash of its partition key (of its id when it has none), stored with
 * the row when it is enqueued; the table has a fixed number of slots. Each worker joins a
 * {@link dev.leasebox.claim.partition.WorkerGroup}, computes its fair share of the slots from the
 * live members ({@link dev.leasebox.claim.partition.SlotAssignment}), and leases those slots through
 * the ordinary {@link dev.leasebox.lease.LeaseManager}: every backend works unchanged
 * ({@link dev.leasebox.claim.partition.SlotLeaseKeeper}). Rows are then claimed in the database,
 * only in slots the worker holds, with tokens derived from the slot lease's fence
 * ({@link dev.leasebox.claim.partition.PartitionedOutboxClaimStore}).
 *
 * <p>Where safety lives: the row claim is the database's (one {@code UPDATE … FOR UPDATE SKIP
 * LOCKED}, unexpired claims are never taken), so two workers never hold one row at once even while
 * membership views disagree during a rebalance; every completion is checked against the row's
 * token exactly as in row mode. The slot lease adds that a slot's rows are claimed by one worker at
 * a time, and its fence orders workers: a slot's grant is recorded in the table only when its fence
 * is above every earlier grant of that slot, and rows are claimed only under the grant the table
 * records, so a holder that lost its slot claims nothing more there.
 *
 * <p><b>Internal:</b> not API. Its types are public only so that other Leasebox packages can reach them; they
 * may change or go in any release without notice. Partition leases are chosen with
 * {@link dev.leasebox.claim.Granularity#PARTITION} on {@link dev.leasebox.Leasebox}'s builder.
 */
package dev.leasebox.claim.partition;
