package dev.leasebox.cli;

import dev.leasebox.testing.Crash;
import dev.leasebox.jdbc.OutboxTableStatus;
import java.io.PrintWriter;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** Runs the demo's workers with a live progress line, kills one, and checks and prints what happened. */
final class DemoRun {

    private static final double KILL_AT_FRACTION = 0.3;
    private static final Duration CATCH_PATIENCE = Duration.ofSeconds(10);

    private final List<DemoCommand.DemoWorker> crew;
    private final DemoLedger ledger;
    private final OutboxTableStatus report;
    private final Clock clock;
    private final int entries;
    private final DemoCommand.DemoWorker victim;
    private final DemoKillSwitch killSwitch;
    private final PrintWriter out;

    DemoRun(List<DemoCommand.DemoWorker> crew, DemoLedger ledger, OutboxTableStatus report, Clock clock, int entries,
            DemoCommand.DemoWorker victim, DemoKillSwitch killSwitch, PrintWriter out) {
        this.killSwitch = killSwitch;
        this.crew = crew;
        this.ledger = ledger;
        this.report = report;
        this.clock = clock;
        this.entries = entries;
        this.victim = victim;
        this.out = out;
    }

    /** Returns whether every check held. */
    boolean execute() throws SQLException, InterruptedException {
        long started = System.nanoTime();
        crew.forEach(w -> w.drain().start());
        Map<Long, Long> orphans = Map.of();
        long killedAtDelivered = -1;
        CountDownLatch never = new CountDownLatch(1);
        long deadline = started + TimeUnit.MINUTES.toNanos(5);
        while (true) {
            long delivered = crew.stream().mapToLong(w -> w.metrics().deliveredTotal()).sum();
            long outstanding = report.outstanding(clock.instant());
            printProgress(started, delivered, outstanding, killedAtDelivered >= 0);
            if (victim != null && killedAtDelivered < 0 && delivered >= entries * KILL_AT_FRACTION) {
                killSwitch.arm();
                if (!killSwitch.awaitCaught(CATCH_PATIENCE)) {
                    out.printf("%n>>> %s emitted nothing for %s; killing it anyway%n", victim.owner(), CATCH_PATIENCE);
                }
                Crash.halt(victim.drain());
                killedAtDelivered = delivered;
                orphans = report.claimsOf(victim.owner());
                out.printf("%n>>> killed %s at %,d delivered: it held claims on %d entries; they come back after the %s lease expires%n",
                        victim.owner(), delivered, orphans.size(), victim.drain().options().leaseDuration());
                out.flush();
            }
            if (outstanding == 0) {
                break;
            }
            if (System.nanoTime() > deadline) {
                out.println();
                out.println("The demo did not finish within 5 minutes: " + outstanding + " entries still outstanding.");
                return false;
            }
            never.await(500, TimeUnit.MILLISECONDS); // the progress line's refresh interval
        }
        for (DemoCommand.DemoWorker worker : crew) {
            if (worker != victim) {
                worker.drain().close();
            }
        }
        out.println();
        return summarize(started, orphans, killedAtDelivered);
    }

    private void printProgress(long started, long delivered, long outstanding, boolean killed) {
        double seconds = (System.nanoTime() - started) / 1e9;
        StringBuilder held = new StringBuilder();
        for (DemoCommand.DemoWorker w : crew) {
            held.append(' ').append(w.owner()).append('=');
            held.append(w == victim && killed ? "killed" : Long.toString(w.manager().heldCount()));
        }
        out.printf("\r[%5.1fs] delivered %,6d/%,d  pending %,6d  %,7.0f rows/s  leases held:%s   ",
                seconds, delivered, entries, outstanding, delivered / Math.max(seconds, 1e-9), held);
        out.flush();
    }

    private boolean summarize(long started, Map<Long, Long> orphans, long killedAtDelivered) throws SQLException {
        double seconds = (System.nanoTime() - started) / 1e9;
        Map<String, Long> counts = report.countsByStatus();
        long delivered = counts.getOrDefault("DELIVERED", 0L);
        long terminalWithClaim = report.terminalWithClaim();
        long refused = crew.stream().mapToLong(w -> w.metrics().refusedTotal()).sum();
        Map<Long, List<DemoLedger.Emission>> duplicates = ledger.duplicates();

        out.println();
        out.printf("%-12s %12s %12s%n", "worker", "emissions", "delivered");
        for (DemoCommand.DemoWorker w : crew) {
            out.printf("%-12s %,12d %,12d%s%n", w.owner(), ledger.emissionsBy(w.owner()), w.metrics().deliveredTotal(),
                    w == victim ? "   (killed at " + String.format("%,d", killedAtDelivered) + " delivered)" : "");
        }
        out.println();

        int reclaimedHigher = 0;
        String example = null;
        for (Map.Entry<Long, Long> orphan : orphans.entrySet()) {
            List<DemoLedger.Emission> emitted = ledger.of(orphan.getKey());
            DemoLedger.Emission last = emitted.isEmpty() ? null : emitted.get(emitted.size() - 1);
            if (last != null && last.fence() > orphan.getValue() && !last.owner().equals(victim.owner())) {
                reclaimedHigher++;
                if (example == null) {
                    example = "entry " + orphan.getKey() + ": fence " + orphan.getValue() + " (" + victim.owner() + ") -> "
                            + last.fence() + " (" + last.owner() + ")";
                }
            }
        }
        List<String> failures = new ArrayList<>(DemoVerdict.check(ledger, report.fenceMarks(), entries,
                victim == null ? null : victim.owner(), orphans.keySet(), terminalWithClaim));
        if (victim != null && reclaimedHigher != orphans.size()) {
            failures.add("nothing lost: " + (orphans.size() - reclaimedHigher) + " of " + orphans.size()
                    + " orphaned entries were not re-emitted by another worker with a higher fence");
        }

        out.printf("Entries DELIVERED:              %,d of %,d in %.1f s (%,.0f rows/s)%n", delivered, entries, seconds,
                delivered / Math.max(seconds, 1e-9));
        if (victim != null) {
            out.printf("Claims orphaned by the kill:    %,d; reclaimed by other workers with a higher fence: %,d%n",
                    orphans.size(), reclaimedHigher);
            if (example != null) {
                out.println("  for example " + example);
            }
        }
        out.printf("Duplicate emissions:            %,d (each explained by the kill or a lease its worker reported lost;%n"
                + "                                each carried the same idempotency key)%n",
                duplicates.size());
        out.printf("Stale completions refused:      %,d%n", refused);
        out.printf("Terminal rows with a claim:     %,d%n", terminalWithClaim);
        out.println();
        if (failures.isEmpty()) {
            out.println("Every invariant held, checked against every emission the provider received and the table's final rows:");
            out.println("claim before emit, fences only grow, no stale finalization, nothing lost, duplicates only across an expiry.");
            return true;
        }
        out.println("INVARIANT BROKEN:");
        failures.stream().limit(20).forEach(f -> out.println("  " + f));
        return false;
    }
}
