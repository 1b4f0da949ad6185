package dev.leasebox.claim.grouped;

import dev.leasebox.claim.leased.LeasedOutboxClaimStore;
import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseLoss;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One {@link GroupedLeaseManager#renew}: the rows' group leases renewed with one delegate call, each
 * row renewed to its group's new deadline; rows whose group lapsed or was refused are lost, every row
 * of such a group with them, and reported.
 */
final class GroupedRenewal {

    private final GroupedLeaseManager manager;
    private final Collection<Lease> leases;
    private final List<Lease> others = new ArrayList<>();
    private final Map<String, List<Lease>> rowsByGroup = new LinkedHashMap<>();
    /** The group leases as they were when the call was sent, by group key. */
    private final Map<String, Lease> groupLeases = new LinkedHashMap<>();

    GroupedRenewal(GroupedLeaseManager manager, Collection<Lease> leases) {
        this.manager = manager;
        this.leases = leases;
    }

    List<Lease> run() {
        sortIntoGroups();
        List<Lease> renewed = new ArrayList<>(others.isEmpty() ? List.of() : manager.delegate().renew(others));
        if (groupLeases.isEmpty()) {
            return renewed;
        }
        Map<String, Lease> renewedGroups = new HashMap<>();
        manager.delegate().renew(List.copyOf(groupLeases.values())).forEach(group -> renewedGroups.put(group.key(), group));
        renewed.addAll(applyRenewals(renewedGroups));
        return renewed;
    }

    /** Sorts the rows into the groups that hold them; rows whose group lapsed or does not hold them are reported lost. */
    private void sortIntoGroups() {
        Instant now = manager.clock().instant();
        List<Lease> refused = new ArrayList<>();
        List<Lease> lapsed = new ArrayList<>();
        List<Lease> lapsedGroups = new ArrayList<>();
        synchronized (manager) {
            for (Lease row : leases) {
                Optional<Long> id = LeasedOutboxClaimStore.entryIdOf(row.key());
                if (id.isEmpty()) {
                    others.add(row);
                    continue;
                }
                GroupHold hold = manager.holds().get(manager.groupKey(id.get()));
                if (hold != null && !hold.lease().isLocallyValid(now)) {
                    manager.holds().remove(hold.groupKey());
                    lapsed.addAll(hold.removeAll());
                    lapsedGroups.add(hold.lease());
                    continue;
                }
                if (hold == null || !hold.holds(row) || !row.isLocallyValid(now)) {
                    refused.add(row);
                    continue;
                }
                rowsByGroup.computeIfAbsent(hold.groupKey(), g -> new ArrayList<>()).add(row);
                groupLeases.put(hold.groupKey(), hold.lease());
            }
        }
        manager.report(lapsed, LeaseLoss.Cause.DEADLINE_PASSED, "its group lease was not renewed within its ttl");
        manager.releaseGroups(lapsedGroups);
        refused.removeIf(row -> lapsed.stream().anyMatch(row::sameGrant));
        manager.report(refused, LeaseLoss.Cause.RENEWAL_REFUSED, "the row's group lease was released, lost or granted again");
    }

    /** Moves each renewed group and its rows to the new deadline; a group not renewed loses every row under it. */
    private List<Lease> applyRenewals(Map<String, Lease> renewedGroups) {
        List<Lease> renewed = new ArrayList<>();
        List<Lease> lost = new ArrayList<>();
        List<Lease> givenUp = new ArrayList<>();
        synchronized (manager) {
            for (Map.Entry<String, List<Lease>> entry : rowsByGroup.entrySet()) {
                GroupHold hold = manager.holds().get(entry.getKey());
                Lease group = renewedGroups.get(entry.getKey());
                boolean same = hold != null && hold.fence() == groupLeases.get(entry.getKey()).fence();
                if (group == null || !same) {
                    if (same) {
                        manager.holds().remove(entry.getKey());
                        lost.addAll(hold.removeAll());
                        givenUp.add(hold.lease());
                    } else {
                        lost.addAll(entry.getValue());
                    }
                    continue;
                }
                hold.renewed(group);
                for (Lease row : entry.getValue()) {
                    if (hold.holds(row)) {
                        renewed.add(hold.extend(row));
                    }
                }
            }
        }
        manager.report(lost, LeaseLoss.Cause.RENEWAL_REFUSED, "the renewal of the rows' group lease was refused");
        manager.releaseGroups(givenUp);
        return renewed;
    }
}
