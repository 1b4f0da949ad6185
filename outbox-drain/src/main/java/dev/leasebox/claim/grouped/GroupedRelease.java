package dev.leasebox.claim.grouped;

import dev.leasebox.claim.leased.LeasedOutboxClaimStore;
import dev.leasebox.lease.Lease;
import dev.leasebox.lease.PeerRank;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * One {@link GroupedLeaseManager#release}: each row handed back to its group; a group left with no row
 * lingers, held, when the manager's stripe has it, else its lease goes back to the delegate in one call.
 * Rows not held under their group's current lease are skipped; other keys pass through.
 */
final class GroupedRelease {

    private final GroupedLeaseManager manager;
    private final Collection<Lease> leases;

    GroupedRelease(GroupedLeaseManager manager, Collection<Lease> leases) {
        this.manager = manager;
        this.leases = leases;
    }

    List<Lease> run() {
        Instant now = manager.clock().instant();
        List<Lease> others = new ArrayList<>();
        List<Lease> released = new ArrayList<>();
        List<Lease> groupsToRelease = new ArrayList<>();
        Optional<PeerRank> rank = manager.peerRank();
        synchronized (manager) {
            for (Lease row : leases) {
                Optional<Long> id = LeasedOutboxClaimStore.entryIdOf(row.key());
                if (id.isEmpty()) {
                    others.add(row);
                    continue;
                }
                GroupHold hold = manager.holds().get(manager.groupKey(id.get()));
                if (hold == null || !hold.holds(row)) {
                    continue;
                }
                hold.remove(row.key());
                released.add(row);
                if (hold.isEmpty()) {
                    if (manager.lingers(id.get(), rank)) {
                        hold.idle(now);
                    } else {
                        manager.holds().remove(hold.groupKey());
                        groupsToRelease.add(hold.lease());
                    }
                }
            }
        }
        manager.releaseGroups(groupsToRelease);
        if (!others.isEmpty()) {
            released.addAll(manager.delegate().release(others));
        }
        return released;
    }
}
