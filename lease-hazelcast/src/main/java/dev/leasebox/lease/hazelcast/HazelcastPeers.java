package dev.leasebox.lease.hazelcast;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import dev.leasebox.lease.PeerRank;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The live lease managers of one namespace, for {@link HazelcastLeaseManager#peerRank()}: each
 * manager keeps an entry in the IMap {@code <namespace>/%peers} whose time-to-live it renews every
 * {@link #HEARTBEAT}, and reads the map's keys on the same tick. A manager that stops renewing drops
 * out {@link #ENTRY_TTL} later, one that closes at once. The claim path reads only the local view.
 *
 * <p>The IMap lives in Hazelcast's partitioned (AP) data grid, not the CP Subsystem: a rank is a hint
 * for spreading candidates, never a basis for safety ({@link PeerRank}), so it needs no consensus, and
 * a split cluster only makes two managers share a rank for a while.
 */
final class HazelcastPeers implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(HazelcastPeers.class);
    /** How often a manager renews its entry and reads the others. */
    static final Duration HEARTBEAT = Duration.ofSeconds(1);
    /** How long an entry outlives its last renewal. */
    static final Duration ENTRY_TTL = Duration.ofSeconds(5);

    private final IMap<String, Long> peers;
    private final String self = UUID.randomUUID().toString();
    private final ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread thread = new Thread(r, "leasebox-hazelcast-peers");
        thread.setDaemon(true);
        return thread;
    });
    private volatile Optional<PeerRank> rank = Optional.empty();

    HazelcastPeers(HazelcastInstance instance, String mapName) {
        this.peers = instance.getMap(mapName);
    }

    /** Joins now (one put and one key read) and then on every heartbeat; a failure leaves the rank empty until a tick succeeds. */
    void start() {
        try {
            tick();
        } catch (RuntimeException e) {
            LOG.warn("no peer rank yet from IMap {} ({}): candidates are not striped until a heartbeat gets through", peers.getName(), e.toString());
        }
        ticker.scheduleWithFixedDelay(this::tickQuietly, HEARTBEAT.toMillis(), HEARTBEAT.toMillis(), TimeUnit.MILLISECONDS);
    }

    Optional<PeerRank> rank() {
        return rank;
    }

    private void tickQuietly() {
        try {
            tick();
        } catch (RuntimeException e) {
            rank = Optional.empty();
            LOG.debug("peer heartbeat on {} failed: {}", peers.getName(), e.toString());
        }
    }

    private void tick() {
        peers.set(self, System.currentTimeMillis(), ENTRY_TTL.toMillis(), TimeUnit.MILLISECONDS);
        List<String> live = new ArrayList<>(peers.keySet());
        Collections.sort(live);
        int index = live.indexOf(self);
        rank = index < 0 ? Optional.empty() : Optional.of(new PeerRank(index, live.size()));
    }

    /**
     * Leaves: the others re-rank on their next heartbeat. The removal is sent without waiting, so a
     * cluster that stopped answering cannot hold up the manager's close; the entry expires anyway.
     */
    @Override
    public void close() {
        ticker.shutdownNow();
        rank = Optional.empty();
        try {
            peers.removeAsync(self);
        } catch (RuntimeException e) {
            LOG.debug("could not remove peer entry from {} (it expires in {}): {}", peers.getName(), ENTRY_TTL, e.toString());
        }
    }
}
