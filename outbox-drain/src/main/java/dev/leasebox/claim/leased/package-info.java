/**
 * Row leases from a {@link dev.leasebox.lease.LeaseManager}: the claim store that leases candidate rows and
 * records (or, lean, does not record) the claims, its grant, release and loss bookkeeping. Chosen with
 * {@link dev.leasebox.claim.ClaimMode} and {@link dev.leasebox.claim.ReleaseAfterCompletion}.
 *
 * <p><b>Internal:</b> not API. Its types are public only so that other Leasebox packages can reach them; they
 * may change or go in any release without notice. Build drains with {@link dev.leasebox.Leasebox}.
 */
package dev.leasebox.claim.leased;
