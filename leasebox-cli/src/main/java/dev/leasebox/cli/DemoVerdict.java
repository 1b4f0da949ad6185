package dev.leasebox.cli;

import dev.leasebox.jdbc.OutboxTableStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The demo's verdict, derived from evidence the workers do not grade themselves on: every emission the
 * demo's provider received (with the fence it was presented), the losses the workers' drains reported, and
 * the table's final rows. Each invariant the summary prints is one check here.
 */
final class DemoVerdict {

    private DemoVerdict() {
    }

    /**
     * What broke, one line each; empty when every invariant held.
     *
     * @param ledger    every emission the provider received, in the order received
     * @param marks     the table's final rows: status and fence high-water mark by entry id
     * @param expected  how many entries were enqueued
     * @param victim    the killed worker's owner, or null when none was killed
     * @param orphans   the entries the killed worker held a claim on when it was killed
     */
    static List<String> check(DemoLedger ledger, Map<Long, OutboxTableStatus.FenceMark> marks, long expected, String victim,
                              Set<Long> orphans, long terminalWithClaim) {
        List<String> failures = new ArrayList<>();
        long delivered = marks.values().stream().filter(m -> "DELIVERED".equals(m.status())).count();
        if (delivered != expected) {
            failures.add("nothing lost: " + delivered + " of " + expected + " entries DELIVERED");
        }
        if (terminalWithClaim != 0) {
            failures.add("no stale finalization: " + terminalWithClaim + " terminal rows still carry a claim token");
        }
        for (Map.Entry<Long, OutboxTableStatus.FenceMark> row : marks.entrySet()) {
            long id = row.getKey();
            List<DemoLedger.Emission> emitted = ledger.of(id);
            long previous = 0;
            for (int i = 0; i < emitted.size(); i++) {
                DemoLedger.Emission e = emitted.get(i);
                if (e.fence() <= 0) {
                    failures.add("claim before emit: entry " + id + " was emitted by " + e.owner() + " without a fence");
                } else if (e.fence() <= previous) {
                    failures.add("fences only grow: entry " + id + " was emitted under fence " + e.fence() + " by "
                            + e.owner() + " after fence " + previous);
                }
                previous = Math.max(previous, e.fence());
                if (i > 0) {
                    DemoLedger.Emission earlier = emitted.get(i - 1);
                    boolean explained = earlier.owner().equals(victim) && orphans.contains(id)
                            || ledger.lost(earlier.owner(), id);
                    if (!explained) {
                        failures.add("duplicates only across an expiry: entry " + id + " was emitted again by " + e.owner()
                                + " (fence " + e.fence() + ") while " + earlier.owner() + " (fence " + earlier.fence()
                                + ") neither was killed holding it nor lost its lease");
                    }
                }
            }
            if ("DELIVERED".equals(row.getValue().status()) && !emitted.isEmpty()
                    && row.getValue().fenceHighWater() != previous) {
                failures.add("no stale finalization: entry " + id + " ended DELIVERED with fence high-water mark "
                        + row.getValue().fenceHighWater() + ", but its newest emission carried fence " + previous);
            }
        }
        return failures;
    }
}
