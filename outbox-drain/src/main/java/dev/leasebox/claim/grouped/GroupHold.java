package dev.leasebox.claim.grouped;

import dev.leasebox.lease.Lease;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A group lease a {@link GroupedLeaseManager} holds on its delegate, and the row leases granted under
 * it. Every row lease carries the group lease's fence and ends no later than it. Guarded by the
 * manager's monitor.
 */
final class GroupHold {

    private final String groupKey;
    /** The delegate's grant of the group key, as last acquired or renewed. */
    private Lease lease;
    /** Row leases handed out and neither released nor lapsed, by row key. */
    private final Map<String, Lease> live = new LinkedHashMap<>();
    /** Every row key ever handed out under this fence: a row is never granted twice under one fence. */
    private final Set<String> everGranted = new HashSet<>();
    /** Since when the group holds no row lease, while it lingers; null otherwise. */
    private Instant idleSince;

    GroupHold(String groupKey, Lease lease) {
        this.groupKey = groupKey;
        this.lease = lease;
    }

    String groupKey() {
        return groupKey;
    }

    Lease lease() {
        return lease;
    }

    long fence() {
        return lease.fence();
    }

    /**
     * The delegate renewed the group lease under the same fence. Of two renewals whose replies cross, the
     * later deadline stands: each is conservative for its own write, and the coordinator keeps the later
     * one (a later write, or a write applied later from its own clock), so a stale reply never shortens the
     * group under rows already handed the later deadline.
     */
    void renewed(Lease renewed) {
        if (renewed.localDeadline().isAfter(lease.localDeadline())) {
            this.lease = renewed;
        }
    }

    boolean grantedBefore(String rowKey) {
        return everGranted.contains(rowKey);
    }

    /**
     * A row lease under this group lease for {@code owner}: its fence, its grant instant, ttl and
     * deadline, so the row ends no later than the group.
     */
    Lease grant(String rowKey, String owner) {
        Lease row = new Lease(rowKey, owner, lease.fence(), lease.grantedAt(), lease.ttl(), lease.localDeadline());
        live.put(rowKey, row);
        everGranted.add(rowKey);
        idleSince = null;
        return row;
    }

    /** The row lease as this group holds it, when {@code row} is that grant. */
    boolean holds(Lease row) {
        Lease current = live.get(row.key());
        return current != null && current.sameGrant(row);
    }

    /** A row lease renewed with its group: the group's new deadline. */
    Lease extend(Lease row) {
        Lease extended = new Lease(row.key(), row.owner(), row.fence(), lease.grantedAt(), lease.ttl(), lease.localDeadline());
        live.put(row.key(), extended);
        return extended;
    }

    void remove(String rowKey) {
        live.remove(rowKey);
    }

    /** Drops and returns the row leases whose local deadline passed at {@code now}. */
    List<Lease> removeLapsed(Instant now) {
        List<Lease> lapsed = new ArrayList<>();
        live.values().removeIf(row -> {
            if (!row.isLocallyValid(now)) {
                lapsed.add(row);
                return true;
            }
            return false;
        });
        return lapsed;
    }

    /** Drops and returns every row lease (the group lease is gone). */
    List<Lease> removeAll() {
        List<Lease> all = new ArrayList<>(live.values());
        live.clear();
        return all;
    }

    boolean isEmpty() {
        return live.isEmpty();
    }

    void idle(Instant now) {
        idleSince = now;
    }

    /** Whether the group lingers, idle, and its linger ended at {@code now}. */
    boolean lingerOver(Instant now, java.time.Duration linger) {
        return idleSince != null && !now.isBefore(idleSince.plus(linger));
    }

    boolean lingering() {
        return idleSince != null;
    }
}
