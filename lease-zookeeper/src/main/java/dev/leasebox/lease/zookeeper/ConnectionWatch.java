package dev.leasebox.lease.zookeeper;

import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseLoss;
import dev.leasebox.lease.spi.LeaseLossListeners;
import dev.leasebox.lease.LeaseManagerException;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.zookeeper.ZooKeeper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * What a manager does when Curator reports a change of its connection, on a thread of its own: on
 * {@code SUSPENDED} listeners are told the leases are at risk; on {@code LOST} every lease is reported
 * lost; on {@code RECONNECTED} the held leases are read again ({@link SessionCheck}), the lost ones
 * reported, and listeners told the connection is restored.
 */
final class ConnectionWatch {

    /** The manager's logger: what operators already filter on. */
    private static final Logger log = LoggerFactory.getLogger(ZooKeeperLeaseManager.class);

    private final ZooKeeperLeaseConfig config;
    private final HeldLeases held;
    private final LeaseLossListeners listeners;
    private final Supplier<ZooKeeper> zooKeeper;
    private final BooleanSupplier closed;
    private final ExecutorService connectionEvents = Executors.newSingleThreadExecutor(runnable -> {
        Thread thread = new Thread(runnable, "leasebox-zookeeper-connection");
        thread.setDaemon(true);
        return thread;
    });

    ConnectionWatch(ZooKeeperLeaseConfig config, HeldLeases held, LeaseLossListeners listeners, Supplier<ZooKeeper> zooKeeper,
                    BooleanSupplier closed) {
        this.config = config;
        this.held = held;
        this.listeners = listeners;
        this.zooKeeper = zooKeeper;
        this.closed = closed;
    }

    /** Follows {@code curator}'s connection states from now on. */
    void watch(CuratorFramework curator) {
        curator.getConnectionStateListenable().addListener((client, state) -> connectionChanged(state), connectionEvents);
    }

    void shutdown() {
        connectionEvents.shutdownNow();
    }

    private void connectionChanged(ConnectionState state) {
        if (closed.getAsBoolean()) {
            return;
        }
        switch (state) {
            case SUSPENDED:
                String suspended = "connection to ZooKeeper at " + config.connectString() + " suspended; " + held.size()
                        + " leases at risk until reconnected (or lost when the session expires)";
                log.warn(suspended);
                listeners.connectionSuspended(suspended);
                break;
            case LOST:
                List<Lease> lost = held.removeAll();
                log.warn("ZooKeeper session at {} lost; {} leases lost", config.connectString(), lost.size());
                if (!lost.isEmpty()) {
                    listeners.report(new LeaseLoss(lost, LeaseLoss.Cause.SESSION_EXPIRED, "ZooKeeper session at "
                            + config.connectString() + " expired or was lost: its ephemeral lease nodes are gone or going"));
                }
                break;
            case RECONNECTED:
                reconnected();
                break;
            default:
                break;
        }
    }

    private void reconnected() {
        try {
            SessionCheck.Outcome outcome = new SessionCheck(new LeasePaths(config.namespace()), config.operationTimeout(),
                    config.connectString()).verify(zooKeeper.get(), held);
            outcome.losses().forEach(loss -> {
                log.warn("{} leases lost ({}): {}", loss.leases().size(), loss.cause(), loss.detail());
                listeners.report(loss);
            });
            String restored = "reconnected to ZooKeeper at " + config.connectString() + "; " + outcome.kept()
                    + " leases verified still held";
            log.info(restored);
            listeners.connectionRestored(restored);
        } catch (LeaseManagerException e) {
            log.warn("could not verify leases after reconnecting to ZooKeeper at {}: {}; they stay at risk",
                    config.connectString(), e.getMessage());
        }
    }
}
