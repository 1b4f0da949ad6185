package dev.leasebox.lease.hazelcast;

import dev.leasebox.lease.spi.LeaseLossListeners;
import com.hazelcast.core.LifecycleEvent;
import dev.leasebox.lease.Lease;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

/**
 * A client's connection to the cluster, as its lifecycle events tell it: listeners hear
 * {@code connectionSuspended} while it is disconnected; on reconnection every leaked lock's unlock is
 * retried at once and every held lock is checked by a renewal, which reports the lost ones, before
 * listeners hear {@code connectionRestored}. A member needs none of this and registers none.
 */
final class ClientReconnection {

    /** The manager's logger: what operators already filter on. */
    private static final Logger LOG = LoggerFactory.getLogger(HazelcastLeaseManager.class);

    private final OwnerThreads owners;
    private final LeaseLossListeners listeners;
    private final Function<Collection<Lease>, List<Lease>> renew;
    private final BooleanSupplier closed;
    private final Clock clock;
    private final Duration timeout;
    private final String description;

    ClientReconnection(OwnerThreads owners, LeaseLossListeners listeners, Function<Collection<Lease>, List<Lease>> renew,
                       BooleanSupplier closed, Clock clock, Duration timeout, String description) {
        this.owners = owners;
        this.listeners = listeners;
        this.renew = renew;
        this.closed = closed;
        this.clock = clock;
        this.timeout = timeout;
        this.description = description;
    }

    /** Client connection changes: suspended while disconnected, re-verified on reconnection. */
    void onLifecycle(LifecycleEvent event) {
        if (closed.getAsBoolean()) {
            return;
        }
        if (event.getState() == LifecycleEvent.LifecycleState.CLIENT_DISCONNECTED) {
            listeners.connectionSuspended(description + " lost its connection to the cluster");
        } else if (event.getState() == LifecycleEvent.LifecycleState.CLIENT_CONNECTED) {
            listeners.execute(this::verifyAfterReconnect);
        }
    }

    private void verifyAfterReconnect() {
        for (OwnerThread owner : owners.all()) {
            owner.submit(() -> {
                owner.leaked.values().forEach(leaked -> leaked.retryNow(clock.instant()));
                return null;
            });
        }
        List<Lease> held = new ArrayList<>();
        for (OwnerThread owner : owners.all()) {
            try {
                held.addAll(owner.submit(() -> owner.held.values().stream().flatMap(lock -> lock.leases().stream()).toList())
                        .get(timeout.toMillis(), TimeUnit.MILLISECONDS));
            } catch (Exception e) {
                LOG.warn("could not list held leases of {}: {}", description, e.toString());
            }
        }
        try {
            renew.apply(held);
            listeners.connectionRestored(description + " reconnected and verified its leases");
        } catch (RuntimeException e) {
            LOG.warn("verifying leases after reconnection failed on {}: {}", description, e.toString());
        }
    }
}
