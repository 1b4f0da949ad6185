package dev.leasebox.lease.spi;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * What a host knows when it opens a backend by name.
 *
 * @param address   the coordinator's address in the backend's format (see {@link LeaseBackend#addressFormat()})
 * @param namespace separates deployments sharing one coordinator
 * @param leaseTtl  the lease duration the drain will request
 * @param options   backend-specific settings ({@code sessionTimeout}, {@code user}, …), by name
 */
public record LeaseBackendSettings(String address, String namespace, Duration leaseTtl, Map<String, String> options) {

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
