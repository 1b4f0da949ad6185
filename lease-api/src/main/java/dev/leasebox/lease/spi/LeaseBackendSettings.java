package dev.leasebox.lease.spi;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * What a host knows when it opens a backend by name.
 *
 * @param address   the coordinator's address in the backend's format (see {@link LeaseBackend#addressFormat()})
 * @param namespace separates deployments sharing one coordinator; a manager opened here with a namespace leases
 *                  the same names as one built with that namespace in code (every backend's builder has
 *                  {@code namespace}, default {@link #DEFAULT_NAMESPACE})
 * @param leaseTtl  the lease duration the drain will request
 * @param options   backend-specific settings, by their kebab-case names ({@code session-timeout}, {@code user}, …);
 *                  durations in the form {@link Durations} reads
 */
public record LeaseBackendSettings(String address, String namespace, Duration leaseTtl, Map<String, String> options) {

    /** The namespace every backend uses when none is given: in code, on the command line and in Spring properties. */
    public static final String DEFAULT_NAMESPACE = "leasebox";

    public LeaseBackendSettings {
        Objects.requireNonNull(address, "address");
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(leaseTtl, "leaseTtl");
        options = Map.copyOf(options);
        if (!namespace.matches("[A-Za-z0-9_.{}-]{1,64}")) {
            throw new IllegalArgumentException("namespace must be 1-64 characters of A-Z a-z 0-9 _ . - { }, was '"
                    + namespace + "'");
        }
    }

    /** A backend-specific option, if given. */
    public Optional<String> option(String name) {
        return Optional.ofNullable(options.get(name));
    }
}
