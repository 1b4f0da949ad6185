package dev.leasebox.spring;

import dev.leasebox.Leasebox;
import dev.leasebox.lease.LeaseManager;

/**
 * A bean that adjusts the drain the starter builds, for what the {@code leasebox.*} properties do not
 * cover (an error classifier, a listener, …). Every customizer bean
 * is applied, in {@link org.springframework.core.annotation.Order order}, when the drain starts.
 */
public interface LeaseboxCustomizer {

    /** Called with the builder after the properties are applied, just before {@link Leasebox.Builder#build()}. */
    default void customize(Leasebox.Builder builder) {
    }

    /**
     * Wraps the lease manager the drain leases from (the application's, or the one opened by name), e.g. to
     * trace it. The wrapper must forward every call. Lease meters need no wrapper:
     * {@link Leasebox.Builder#meterLeases}, which {@link LeaseboxMetrics} sets, meters these and the
     * database's own lease manager of partition leases.
     */
    default LeaseManager decorateLeaseManager(LeaseManager manager) {
        return manager;
    }
}
