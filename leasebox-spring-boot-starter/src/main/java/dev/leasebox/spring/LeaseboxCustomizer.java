package dev.leasebox.spring;

import dev.leasebox.Leasebox;
import dev.leasebox.lease.LeaseManager;

/**
 * A bean that adjusts the drain the starter builds, for what the {@code leasebox.*} properties do not
 * cover (release after completion, candidate window, a claim-store decorator, …). Every customizer bean
 * is applied, in {@link org.springframework.core.annotation.Order order}, when the drain starts.
 */
public interface LeaseboxCustomizer {

    /** Called with the builder after the properties are applied, just before {@link Leasebox.Builder#build()}. */
    default void customize(Leasebox.Builder builder) {
    }

    /**
     * Wraps the lease manager the drain leases from (the application's, the one opened by name, or the
     * database's own of partition leases), e.g. to meter it. The wrapper must forward every call.
     */
    default LeaseManager decorateLeaseManager(LeaseManager manager) {
        return manager;
    }
}
