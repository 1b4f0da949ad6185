package dev.leasebox.lease.spi;

import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseLoss;
import dev.leasebox.lease.LeaseLossListener;
import org.slf4j.Logger;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A lease manager's {@link LeaseLossListener}s, told of lost leases and connection changes on one
 * notifier, in the order the notices were given; a listener that throws is logged and does not keep the
 * others from hearing. For backend implementations: a manager whose own threads must never wait for a
 * listener tells them on a thread of their own ({@link #onOwnThread}), one whose events arrive on a
 * client's event thread may tell them there ({@link #onCallingThread}).
 */
public final class LeaseLossListeners {

    private final List<LeaseLossListener> listeners = new CopyOnWriteArrayList<>();
    private final Executor notifier;
    private final String description;
    private final Logger log;

    /**
     * Listeners told on {@code notifier}.
     *
     * @param description the manager, for the log and appended to the detail of losses given as leases
     * @param log         the manager's logger (what operators already filter on), for listeners that throw
     */
    public LeaseLossListeners(String description, Executor notifier, Logger log) {
        this.description = Objects.requireNonNull(description, "description");
        this.notifier = Objects.requireNonNull(notifier, "notifier");
        this.log = Objects.requireNonNull(log, "log");
    }

    /** Listeners told on one daemon thread named {@code threadName}, stopped by {@link #shutdown()}. */
    public static LeaseLossListeners onOwnThread(String description, String threadName, Logger log) {
        return new LeaseLossListeners(description, Executors.newSingleThreadExecutor(r -> {
            Thread thread = new Thread(r, threadName);
            thread.setDaemon(true);
            return thread;
        }), log);
    }

    /** Listeners told on the thread that reports. */
    public static LeaseLossListeners onCallingThread(String description, Logger log) {
        return new LeaseLossListeners(description, Runnable::run, log);
    }

    public void add(LeaseLossListener listener) {
        listeners.add(Objects.requireNonNull(listener, "listener"));
    }

    /** Tells every listener that {@code lost} are lost ({@code detail} followed by the manager); nothing when empty. */
    public void report(List<Lease> lost, LeaseLoss.Cause cause, String detail) {
        if (lost.isEmpty() || listeners.isEmpty()) {
            return;
        }
        LeaseLoss loss = new LeaseLoss(lost, cause, detail + " (" + description + ")");
        tellAll(listener -> listener.leasesLost(loss));
    }

    /** Tells every listener of {@code loss}, as given. */
    public void report(LeaseLoss loss) {
        Objects.requireNonNull(loss, "loss");
        tellAll(listener -> listener.leasesLost(loss));
    }

    /** Tells every listener that the connection to the coordinator is suspended. */
    public void connectionSuspended(String detail) {
        tellAll(listener -> listener.connectionSuspended(detail));
    }

    /** Tells every listener that the connection is back and the leases verified. */
    public void connectionRestored(String detail) {
        tellAll(listener -> listener.connectionRestored(detail));
    }

    /** Runs {@code task} on the notifier, after every notice given before it. */
    public void execute(Runnable task) {
        notifier.execute(task);
    }

    /** Stops a notifier this class started ({@link #onOwnThread}); notices given later are not delivered. */
    public void shutdown() {
        if (notifier instanceof ExecutorService service) {
            service.shutdown();
        }
    }

    private void tellAll(java.util.function.Consumer<LeaseLossListener> notice) {
        notifier.execute(() -> listeners.forEach(listener -> {
            try {
                notice.accept(listener);
            } catch (RuntimeException e) {
                log.warn("a lease loss listener of {} threw; the others are still told", description, e);
            }
        }));
    }
}
