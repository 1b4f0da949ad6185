package dev.leasebox.lease.spi;

import dev.leasebox.lease.LeaseManager;

/**
 * A lease backend module's entry point, found with {@link java.util.ServiceLoader}: how the
 * {@code leasebox} command and other hosts open a {@link LeaseManager} by name without a compile-time
 * dependency on the backend. Each backend module registers one implementation in
 * {@code META-INF/services/dev.leasebox.lease.spi.LeaseBackend}.
 */
public interface LeaseBackend {

    /** The name users select it by: {@code zookeeper}, {@code redis}, {@code hazelcast}. */
    String name();

    /** What the address in {@link LeaseBackendSettings#address()} looks like, for help and errors. */
    String addressFormat();

    /**
     * The key this backend's own messages name its address by, as in {@code leasebox.<name>.<key>}
     * ({@code leasebox.zookeeper.connect-string}): a host puts the setting its user gives the address with in its
     * place, and the setting of a backend option in place of any other key. By default {@code address}.
     */
    default String addressKey() {
        return "address";
    }

    /**
     * Opens a manager; fails with {@link dev.leasebox.lease.LeaseManagerException} and one line naming
     * the address tried when the coordinator cannot be reached or the settings are wrong.
     */
    LeaseManager open(LeaseBackendSettings settings);
}
