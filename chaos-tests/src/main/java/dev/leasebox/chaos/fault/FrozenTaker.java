package dev.leasebox.chaos.fault;

import dev.leasebox.chaos.harness.ChaosCluster;
import dev.leasebox.chaos.harness.FaultRules;
import dev.leasebox.chaos.harness.Poll;
import dev.leasebox.chaos.harness.WorkerProcess;
import dev.leasebox.chaos.history.FaultEvent;
import dev.leasebox.chaos.history.HistoryEvent;
import dev.leasebox.chaos.worker.FaultPoints;
import dev.leasebox.claim.LeaseGrouping;
import dev.leasebox.claim.grouped.GroupedLeaseManager;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A ZooKeeper taker held between its read of an expired lease node and its takeover writes, while a third worker
 * takes the same lease over, then let go: the window in which a taker that checks only the node's version deletes
 * a newer holder's node (versions restart at 0 in every new node of a key). No signal from outside lands in it, so
 * the taker (the second worker) runs a Byteman rule ({@link FaultRules#zooKeeperTakeoverHold}) that holds the
 * thread there when the harness arms it. Each round:
 *
 * <ol>
 *   <li>arm the point, wait until the holder (the first worker) holds claims, SIGSTOP it: its nodes stay, under its
 *       live session, and expire;</li>
 *   <li>wait until the taker reached the point, reading some of them expired; the rule's detail names the keys;</li>
 *   <li>wait until the third worker (completions slowed by 400 ms, so it holds what it claims that long) has claimed
 *       one of those entries, taking its node over;</li>
 *   <li>let the taker go at once, then SIGCONT the holder.</li>
 * </ol>
 *
 * The taker's writes must then fail: judged by real time, no entry has two holders at once ({@code
 * prematureTakeover}), and nothing is lost. The holder's pause stays well within the ZooKeeper session, or its
 * nodes would vanish and there would be nothing expired to take over.
 */
public final class FrozenTaker implements FaultInjector {

    private static final Pattern ROW_KEY = Pattern.compile("key=row-(\\d+)");
    private static final Pattern GROUP_KEY = Pattern.compile("key=" + GroupedLeaseManager.GROUP_PREFIX + "(\\d+)");
    private static final Pattern TAKEOVER = Pattern.compile("key=([^,\\]]+), version=(-?\\d+)");
    private static final String POINT = FaultRules.ZOOKEEPER_TAKEOVER;

    private WorkerProcess paused;
    private Path points;
    private int armed;

    @Override
    public WorkerProcess.Options victimOptions(Path runDir) {
        return new WorkerProcess.Options(0, null, WorkerPause.WRITE_LATENCY, false, null);
    }

    @Override
    public WorkerProcess.Options othersOptions(Path runDir) {
        return new WorkerProcess.Options(0, null, Duration.ZERO, false, null)
                .withFaultRules(FaultRules.write(runDir.resolve("fault-rules-w2.btm"), FaultRules.zooKeeperTakeoverHold()));
    }

    @Override
    public List<WorkerProcess.Options> bystanderOptions(Path runDir) {
        return List.of(new WorkerProcess.Options(0, null, WorkerPause.WRITE_LATENCY, false, null));
    }

    @Override
    public void inject(ChaosCluster cluster, Duration window) {
        long deadline = System.nanoTime() + window.toNanos();
        points = WorkerProcess.faultPoints(cluster.runDir());
        WorkerProcess holder = cluster.victim();
        WorkerProcess taker = cluster.workers().get(1);
        List<WorkerProcess> bystanders = cluster.workers().subList(2, cluster.workers().size());
        Duration expiry = cluster.lease().multipliedBy(3).plusSeconds(2);
        int held = 0;
        for (int round = 0; round < 3 && System.nanoTime() < deadline; round++) {
            armed = FaultPoints.arm(points, POINT);
            if (!FaultInjector.awaitHolding(holder, Duration.ofNanos(Math.max(0, deadline - System.nanoTime())))) {
                break;
            }
            paused = holder;
            holder.process().pause();
            cluster.faults().record(FaultEvent.PAUSE, holder.owner(), "SIGSTOP pid " + holder.process().pid()
                    + " holding " + holder.heldEntries().size() + " claims, so that their leases expire under a live session");
            Optional<String> reached = awaitReached(expiry);
            if (reached.isEmpty()) {
                resumeHolder(cluster, "no takeover reached the fault point");
                continue;
            }
            held++;
            Predicate<Long> entries = entries(reached.get());
            long heldAt = System.currentTimeMillis();
            cluster.faults().record(FaultEvent.HOLD, taker.owner(), "held at " + POINT + " after reading "
                    + summary(reached.get()));
            boolean overtaken = Poll.until(() -> bystanders.stream().anyMatch(w -> w.history().stream()
                            .anyMatch(e -> e.t() >= heldAt && HistoryEvent.CLAIM.equals(e.kind()) && entries.test(e.entry()))),
                    Duration.ofMillis(5), expiry);
            cluster.faults().record(FaultEvent.RELEASE, taker.owner(), "let go after " + (System.currentTimeMillis() - heldAt)
                    + " ms, " + (overtaken ? "another worker having taken one of those leases over" : "no other worker took them over"));
            FaultPoints.release(points, POINT, armed);
            resumeHolder(cluster, overtaken ? "its claims taken over" : "not reclaimed");
            Poll.pause(cluster.lease());
        }
        requireReached(POINT, held, "LeaseAcquisition.round's call of beforeTakeover");
    }

    /** Stops the run when no thread ever reached {@code point}: the scenario then proved nothing of its own. */
    static void requireReached(String point, int times, String target) {
        if (times == 0) {
            throw new IllegalStateException("no worker thread reached the fault point " + point + " during the window: "
                    + "if its Byteman rule's target (" + target + ") was renamed or moved, update FaultRules");
        }
    }

    private Optional<String> awaitReached(Duration timeout) {
        String[] detail = {null};
        Poll.until(() -> {
            detail[0] = FaultPoints.reached(points, POINT, armed).orElse(null);
            return detail[0] != null;
        }, Duration.ofMillis(5), timeout);
        return Optional.ofNullable(detail[0]);
    }

    private void resumeHolder(ChaosCluster cluster, String outcome) {
        // Logged before the signal: a resumed sender can deliver within the millisecond.
        cluster.faults().record(FaultEvent.RESUME, paused.owner(), "SIGCONT, " + outcome);
        paused.process().resume();
        paused = null;
    }

    /** "N nodes expired (row-46 at version 0, …)", from a rule's detail, naming at most four. */
    static String summary(String detail) {
        Matcher m = TAKEOVER.matcher(detail);
        List<String> named = new java.util.ArrayList<>();
        int count = 0;
        while (m.find()) {
            if (count++ < 4) {
                named.add(m.group(1) + " at version " + m.group(2));
            }
        }
        return count + " node(s) expired (" + String.join(", ", named) + (count > 4 ? ", …" : "") + ")";
    }

    /**
     * The entries whose leases a rule's detail names: {@code row-<id>} keys (a lease per row) and
     * {@code row-group-<n>} keys (rows grouped as the workers group them by default, {@link LeaseGrouping#DEFAULT}).
     */
    static Predicate<Long> entries(String detail) {
        Set<Long> ids = new TreeSet<>();
        Set<Long> groups = new TreeSet<>();
        Matcher rows = ROW_KEY.matcher(detail);
        while (rows.find()) {
            ids.add(Long.parseLong(rows.group(1)));
        }
        Matcher grouped = GROUP_KEY.matcher(detail);
        while (grouped.find()) {
            groups.add(Long.parseLong(grouped.group(1)));
        }
        LeaseGrouping g = LeaseGrouping.DEFAULT;
        return id -> ids.contains(id) || groups.contains((id / g.block()) % g.groups());
    }

    @Override
    public void heal(ChaosCluster cluster) {
        if (points != null && armed > 0) {
            FaultPoints.release(points, POINT, armed);
        }
        if (paused != null) {
            paused.process().resume();
        }
    }
}
