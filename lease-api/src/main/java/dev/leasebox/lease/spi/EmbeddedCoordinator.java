package dev.leasebox.lease.spi;

/**
 * A coordinator a backend can run inside this JVM — for the demo, local trials and the
 * {@code leasebox zookeeper-server} / {@code hazelcast-member} commands; never for production.
 */
public interface EmbeddedCoordinator extends AutoCloseable {

    /** The address to hand {@link LeaseBackend#open} (in the backend's own format). */
    String address();

    /** Options a client of this coordinator must pass to {@link LeaseBackend#open} (e.g. its session settings). */
    default java.util.Map<String, String> clientOptions() {
        return java.util.Map.of();
    }

    /** Stops the coordinator and deletes what it wrote. */
    @Override
    void close();
}
