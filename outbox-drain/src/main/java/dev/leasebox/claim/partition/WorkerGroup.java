package dev.leasebox.claim.partition;

import java.time.Duration;
import java.util.List;

/**
 * Membership of the workers sharing a table's slots: who is alive, so that each can take its fair
 * share. Membership only spreads the slots; it never decides who may write (the slot leases and the
 * row claims do), so views that briefly disagree cost balance, not safety.
 */
public interface WorkerGroup {

    /**
     * Records that {@code owner} is alive for {@code ttl} from now and returns the live members,
     * {@code owner} included, sorted; one round trip.
     */
    List<String> heartbeat(String owner, Duration ttl);

    /** Removes {@code owner} at once (graceful leave), so the others rebalance without waiting for its ttl. */
    void leave(String owner);

    /** One line naming where membership lives, for logs. */
    String describe();
}
