package dev.leasebox.claim.leased;

/**
 * A lease manager that leases consecutive rows in blocks under one lease: row keys
 * ({@link LeasedOutboxClaimStore#leaseKey(long)}) with the same {@code id / rowBlock()} that one request
 * asks for are granted with one round trip and share its fence. The claim path finds it with
 * {@link dev.leasebox.lease.LeaseManager#as(Class)} and then gives each worker a stripe of whole blocks
 * ({@link dev.leasebox.outbox.CandidateStripe}), so that its candidates come in blocks and nobody else's
 * rows share its locks. A hint for choosing keys: the lease contract holds for every key whatever the
 * caller asks for. A manager that is not one leases every row on its own (a block of 1).
 */
public interface RowBlockLeases {

    /** How many consecutive rows one lease covers, at least 1. */
    int rowBlock();

    /** The block of {@code leases}: its {@link #rowBlock()} where it leases blocks, else 1. */
    static int of(dev.leasebox.lease.LeaseManager leases) {
        return leases.as(RowBlockLeases.class).map(RowBlockLeases::rowBlock).orElse(1);
    }
}
