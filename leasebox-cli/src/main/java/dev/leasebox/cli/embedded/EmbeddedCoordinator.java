package dev.leasebox.cli.embedded;

import java.util.Map;

/**
 * A coordinator running inside this JVM, for the demo, local trials and the {@code leasebox zookeeper-server}
 * / {@code hazelcast-member} commands; never for production. Started by {@link EmbeddedCoordinators#start}.
 */
public interface EmbeddedCoordinator extends AutoCloseable {

    /** The address a client opens the backend at (in the backend's own format). */
    String address();

    /** Backend options a client of this coordinator must pass (e.g. its session settings), by kebab-case name. */
    default Map<String, String> clientOptions() {
        return Map.of();
    }

    /** Stops the coordinator and deletes what it wrote to a temporary directory. */
    @Override
    void close();
}
