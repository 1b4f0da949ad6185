package dev.leasebox.lease.hazelcast;

import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseLoss;
import dev.leasebox.lease.LeaseLossListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A manager's {@link LeaseLossListener}s and the one thread that tells them of lost leases and
 * connection changes, so that an owner thread never waits for a listener and notices arrive in the
 * order they were queued.
 */
final class LeaseLossListeners {

    /** The manager's logger: what operators already filter on. */
    private static final Logger LOG = LoggerFactory.getLogger(HazelcastLeaseManager.class);

    private final List<LeaseLossListener> listeners = new CopyOnWriteArrayList<>();
    private final Executor notifier;
    private final String description;

    LeaseLossListeners(String description) {
        this(description, Executors.newSingleThreadExecutor(r -> {
            Thread thread = new Thread(r, "leasebox-hazelcast-listeners");
            thread.setDaemon(true);
            return thread;
        }));
    }

    /** Listeners told on {@code notifier} (for tests: the calling thread). */
    LeaseLossListeners(String description, Executor notifier) {
        this.description = description;
        this.notifier = notifier;
    }

    void add(LeaseLossListener listener) {
        listeners.add(Objects.requireNonNull(listener, "listener"));
    }

    /** Tells every listener, on the notifier thread, that {@code lost} are lost; one that throws does not stop the rest. */
    void report(List<Lease> lost, LeaseLoss.Cause cause, String detail) {
        if (lost.isEmpty() || listeners.isEmpty()) {
            return;
        }
        LeaseLoss loss = new LeaseLoss(lost, cause, detail + " (" + description + ")");
        notifier.execute(() -> listeners.forEach(listener -> {
            try {
                listener.leasesLost(loss);
            } catch (RuntimeException e) {
                LOG.warn("a lease loss listener failed: {}", e.toString());
            }
        }));
    }

    /** Tells every listener, on the notifier thread, that the connection to the cluster is suspended. */
    void connectionSuspended(String detail) {
        notifier.execute(() -> listeners.forEach(l -> l.connectionSuspended(detail)));
    }

    /** Tells every listener, on the calling thread, that the connection is back and the leases verified. */
    void connectionRestored(String detail) {
        listeners.forEach(l -> l.connectionRestored(detail));
    }

    /** Runs {@code task} on the notifier thread, after every notice queued before it. */
    void execute(Runnable task) {
        notifier.execute(task);
    }

    void shutdown() {
        if (notifier instanceof ExecutorService service) {
            service.shutdown();
        }
    }
}
