package dev.leasebox.claim.grouped;

import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseLoss;
import dev.leasebox.lease.LeaseManagerException;
import dev.leasebox.lease.LeaseRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One {@link GroupedLeaseManager#acquire} of row keys: grants from groups held already (renewing
 * those confirmed too long ago, in one call), then rounds of one delegate {@code acquire} each for the
 * groups not held, until the request's limit is reached or every group was tried once.
 */
final class GroupedAcquire {

    private static final Logger LOG = LoggerFactory.getLogger(GroupedAcquire.class);

    private final GroupedLeaseManager manager;
    private final LeaseRequest request;
    private final Map<String, List<String>> rowsByGroup;
    private final List<Lease> granted = new ArrayList<>();
    private int remaining;
    private Instant sent;

    GroupedAcquire(GroupedLeaseManager manager, LeaseRequest request, Map<String, List<String>> rowsByGroup) {
        this.manager = manager;
        this.request = request;
        this.rowsByGroup = rowsByGroup;
        this.remaining = request.maxGrants();
    }

    List<Lease> run() {
        sent = manager.clock().instant();
        List<String> notHeld = new ArrayList<>();
        Map<String, Lease> stale = new LinkedHashMap<>();
        List<Lease> lapsed = new ArrayList<>();
        List<Lease> toRelease = new ArrayList<>();
        synchronized (manager) {
            for (Map.Entry<String, List<String>> group : rowsByGroup.entrySet()) {
                GroupHold hold = manager.holds().get(group.getKey());
                if (hold != null && !hold.lease().isLocallyValid(sent)) {
                    manager.holds().remove(group.getKey());
                    lapsed.addAll(hold.removeAll());
                    toRelease.add(hold.lease());
                    hold = null;
                }
                if (hold == null) {
                    if (!manager.asking().contains(group.getKey())) {
                        notHeld.add(group.getKey());
                    }
                } else if (confirmedRecently(hold)) {
                    grantFrom(hold, group.getValue());
                } else {
                    stale.put(group.getKey(), hold.lease());
                }
            }
        }
        manager.report(lapsed, LeaseLoss.Cause.DEADLINE_PASSED, "its group lease was not renewed within its ttl");
        manager.releaseGroups(toRelease);
        if (remaining > 0 && !stale.isEmpty() && !renewAndGrant(stale)) {
            return granted;
        }
        while (remaining > 0 && !notHeld.isEmpty()) {
            if (!acquireRound(notHeld)) {
                break;
            }
        }
        return granted;
    }

    /** Whether the group lease was acquired or renewed less than half the request's ttl before this request. */
    private boolean confirmedRecently(GroupHold hold) {
        return !hold.lease().grantedAt().plus(request.ttl().dividedBy(2)).isBefore(sent);
    }

    /** Renews held groups confirmed too long ago, then grants from those still held; false when the call failed. */
    private boolean renewAndGrant(Map<String, Lease> stale) {
        Map<String, Lease> renewed = new HashMap<>();
        try {
            manager.delegate().renew(List.copyOf(stale.values())).forEach(group -> renewed.put(group.key(), group));
        } catch (LeaseManagerException e) {
            return keepGranted(e);
        }
        List<Lease> lost = new ArrayList<>();
        List<Lease> givenUp = new ArrayList<>();
        synchronized (manager) {
            for (Map.Entry<String, Lease> entry : stale.entrySet()) {
                GroupHold hold = manager.holds().get(entry.getKey());
                if (hold == null || hold.fence() != entry.getValue().fence()) {
                    continue;
                }
                Lease group = renewed.get(entry.getKey());
                if (group == null) {
                    manager.holds().remove(entry.getKey());
                    lost.addAll(hold.removeAll());
                    givenUp.add(hold.lease());
                    continue;
                }
                hold.renewed(group);
                grantFrom(hold, rowsByGroup.get(entry.getKey()));
            }
        }
        manager.report(lost, LeaseLoss.Cause.RENEWAL_REFUSED, "the renewal of the rows' group lease was refused");
        manager.releaseGroups(givenUp);
        return true;
    }

    /**
     * One delegate {@code acquire} for the fewest groups not held, in request order, whose rows cover
     * the grants still wanted; they are taken off {@code notHeld}. False when the call failed.
     */
    private boolean acquireRound(List<String> notHeld) {
        List<String> round = new ArrayList<>();
        int rows = 0;
        while (rows < remaining && !notHeld.isEmpty()) {
            String group = notHeld.remove(0);
            round.add(group);
            rows += rowsByGroup.get(group).size();
        }
        synchronized (manager) {
            round.removeIf(group -> manager.asking().contains(group) || manager.holds().containsKey(group));
            manager.asking().addAll(round);
        }
        if (round.isEmpty()) {
            return true;
        }
        List<Lease> got;
        try {
            got = manager.delegate().acquire(new LeaseRequest(round, request.owner(), request.ttl(), request.safetyMargin()));
        } catch (LeaseManagerException e) {
            synchronized (manager) {
                manager.asking().removeAll(round);
                manager.lostWhileAsking().keySet().removeAll(round);
            }
            return keepGranted(e);
        }
        Map<String, Lease> byGroup = new HashMap<>();
        got.forEach(group -> byGroup.put(group.key(), group));
        List<Lease> unused = new ArrayList<>();
        synchronized (manager) {
            manager.asking().removeAll(round);
            for (String key : round) {
                Lease group = byGroup.get(key);
                Long lostMeanwhile = manager.lostWhileAsking().remove(key);
                if (group == null || lostMeanwhile != null && lostMeanwhile == group.fence()) {
                    // not granted, or reported lost before it could be recorded: nothing is granted under it
                    continue;
                }
                GroupHold hold = new GroupHold(key, group);
                manager.holds().put(key, hold);
                List<String> rowsOfGroup = rowsByGroup.get(key);
                grantFrom(hold, rowsOfGroup);
                if (hold.isEmpty()) {
                    if (manager.lingersForGroupOf(rowsOfGroup.get(0))) {
                        hold.idle(manager.clock().instant());
                    } else {
                        manager.holds().remove(key);
                        unused.add(group);
                    }
                }
            }
        }
        manager.releaseGroups(unused);
        return true;
    }

    /** Grants {@code rows} of {@code hold} never granted under its fence, up to the request's limit. Under the manager's monitor. */
    private void grantFrom(GroupHold hold, List<String> rows) {
        for (String row : rows) {
            if (remaining == 0) {
                return;
            }
            if (!hold.grantedBefore(row)) {
                granted.add(hold.grant(row, request.owner()));
                remaining--;
            }
        }
    }

    /** A delegate call failed: rethrown when nothing was granted yet, else the grants so far stand. */
    private boolean keepGranted(LeaseManagerException e) {
        if (granted.isEmpty()) {
            throw e;
        }
        LOG.warn("{}; returning the {} row leases granted before it", e.getMessage(), granted.size());
        return false;
    }
}
