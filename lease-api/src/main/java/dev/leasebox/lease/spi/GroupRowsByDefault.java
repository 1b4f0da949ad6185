package dev.leasebox.lease.spi;

/**
 * Implemented by a lease manager for which a lease per outbox row is costly to its coordinator: a drain
 * leasing rows from it groups them under shared leases unless told otherwise
 * ({@code Leasebox.Builder.rowGrouping}). Found through {@link dev.leasebox.lease.LeaseManager#as}, so a
 * decorator that forwards {@code as} keeps it.
 */
public interface GroupRowsByDefault {

    /** Why a lease per row is costly here, in one line, for the drain's log. */
    String whyGroupRows();
}
