package dev.leasebox.lease.zookeeper;

import dev.leasebox.lease.LeaseLoss;
import dev.leasebox.lease.LeaseLossListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A manager's {@link LeaseLossListener}s, told on the calling thread; a listener that throws is
 * logged and does not keep the others from hearing.
 */
final class LeaseLossListeners {

    /** The manager's logger: what operators already filter on. */
    private static final Logger log = LoggerFactory.getLogger(ZooKeeperLeaseManager.class);

    private final List<LeaseLossListener> listeners = new CopyOnWriteArrayList<>();

    void add(LeaseLossListener listener) {
        listeners.add(Objects.requireNonNull(listener, "listener"));
    }

    void reportLoss(LeaseLoss loss) {
        log.warn("{} leases lost ({}): {}", loss.leases().size(), loss.cause(), loss.detail());
        listeners.forEach(listener -> notify(() -> listener.leasesLost(loss)));
    }

    void connectionSuspended(String detail) {
        listeners.forEach(listener -> notify(() -> listener.connectionSuspended(detail)));
    }

    void connectionRestored(String detail) {
        listeners.forEach(listener -> notify(() -> listener.connectionRestored(detail)));
    }

    private static void notify(Runnable callback) {
        try {
            callback.run();
        } catch (RuntimeException e) {
            log.error("a LeaseLossListener threw; continuing with the next", e);
        }
    }
}
