package dev.leasebox.lease.zookeeper;

import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseLoss;
import dev.leasebox.lease.zookeeper.HeldLeases.Held;
import dev.leasebox.lease.zookeeper.LeaseNodeWrites.NodeRead;
import dev.leasebox.lease.zookeeper.LeaseNodeWrites.NodeStat;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Renewals and releases of held lease nodes, and what they change in this manager's bookkeeping
 * ({@link HeldLeases}) and report to its listeners.
 *
 * <h2>Guarantees</h2>
 * <ul>
 *   <li><b>One writer per lease.</b> Renewals and releases of one key run one at a time ({@link KeyLocks}),
 *       each reading the held entry (the version last written) only once the key is its own, so a holder's
 *       concurrent renewals (the drain's renewal thread and its claim loops) never race each other's
 *       version-checked writes, and a release never deletes at a version a renewal just moved past.</li>
 *   <li><b>A refusal is checked before it counts.</b> A write refused by the coordinator is not yet a loss:
 *       a write of this manager whose reply never came (a timeout) may have moved the version. The node is
 *       read back; while it still stands with the grant's czxid, this session as its owner and the grant's
 *       incarnation token, it is this grant's node, and the write is sent once more at the version read.
 *       Only a node gone, taken over, or refused again is reported lost and forgotten.</li>
 *   <li><b>Timeouts change nothing here.</b> A call whose reply did not come throws and leaves every held
 *       entry as it was; the next write finds the version moved, if it did, and recovers as above.</li>
 * </ul>
 * Losses are reported after the keys are unlocked, so a listener may call back into the manager.
 */
final class HeldLeaseWrites {

    /** Stripes of {@link KeyLocks}: enough that unrelated keys seldom wait for each other. */
    static final int LOCK_STRIPES = 64;

    private final Clock wallClock;
    private final Clock localClock;
    private final String where;
    private final HeldLeases held;
    private final Consumer<LeaseLoss> lossReporter;
    private final Supplier<WritePause> pause;
    private final KeyLocks locks;

    HeldLeaseWrites(Clock wallClock, Clock localClock, String where, HeldLeases held, Consumer<LeaseLoss> lossReporter,
                    Supplier<WritePause> pause, int lockStripes) {
        this.locks = new KeyLocks(lockStripes);
        this.wallClock = wallClock;
        this.localClock = localClock;
        this.where = where;
        this.held = held;
        this.lossReporter = lossReporter;
        this.pause = pause;
    }

    /**
     * Moves each held node's deadline with a version-checked write whose stat must still carry the
     * lease's fence and session. Leases not held by this manager with that fence, or past their local
     * deadline (monotonic clock), are not sent and are reported lost.
     */
    List<Lease> renew(LeaseNodeWrites writes, Collection<Lease> leases) {
        List<Lease> renewed = new ArrayList<>();
        List<Lease> refused = new ArrayList<>();
        List<Lease> overdue = new ArrayList<>();
        try (KeyLocks.Held ignored = locks.lock(leases.stream().map(Lease::key).toList())) {
            renewLocked(writes, leases, renewed, refused, overdue);
        } finally {
            // also when a call failed: what was found lost before it is lost all the same
            report(refused, LeaseLoss.Cause.RENEWAL_REFUSED, "the lease node was gone, changed, or not held by this manager with that fence");
            report(overdue, LeaseLoss.Cause.DEADLINE_PASSED, "the local deadline passed before the renewal was sent");
        }
        return renewed;
    }

    /** The renewal proper, with the keys' stripes held: fills {@code renewed}, {@code refused} and {@code overdue}. */
    private void renewLocked(LeaseNodeWrites writes, Collection<Lease> leases, List<Lease> renewed, List<Lease> refused,
                             List<Lease> overdue) {
        Instant now = localClock.instant();
        Instant wallNow = wallClock.instant();
        List<Held> sendable = new ArrayList<>();
        for (Lease lease : leases) {
            Optional<Held> entry = held.find(lease);
            if (entry.isEmpty()) {
                refused.add(lease);
            } else if (!entry.get().lease().isLocallyValid(now)) {
                held.remove(entry.get());
                overdue.add(lease);
            } else {
                sendable.add(entry.get());
            }
        }
        if (!sendable.isEmpty()) {
            pause.get().beforeRenewal();
            List<Held> again = recordRenewals(sendable, writes.renew(sendable, wallNow), now, renewed);
            List<Held> ours = stillOurs(writes, again, refused);
            if (!ours.isEmpty()) {
                refused.addAll(forget(recordRenewals(ours, writes.renew(ours, wallNow), now, renewed)));
            }
        }
    }

    /**
     * Deletes each node still held with that fence and before its local deadline, with its
     * incarnation node: the delete of the incarnation node fails unless it is still this grant's node.
     * A node that outlives a refused delete is left to its deadline, as a takeover allows after it.
     */
    List<Lease> release(LeaseNodeWrites writes, Collection<Lease> leases) {
        List<Lease> released = new ArrayList<>();
        try (KeyLocks.Held ignored = locks.lock(leases.stream().map(Lease::key).toList())) {
            Instant now = localClock.instant();
            List<Held> sendable = new ArrayList<>();
            for (Lease lease : leases) {
                Optional<Held> entry = held.find(lease);
                if (entry.isPresent() && entry.get().lease().isLocallyValid(now)) {
                    sendable.add(entry.get());
                } else {
                    // Past the local deadline the node may have been taken over: nothing to release.
                    entry.ifPresent(held::remove);
                }
            }
            if (sendable.isEmpty()) {
                return List.of();
            }
            List<Held> again = recordReleases(sendable, writes.release(sendable), released);
            List<Held> ours = stillOurs(writes, again, new ArrayList<>());
            if (!ours.isEmpty()) {
                forget(recordReleases(ours, writes.release(ours), released));
            }
        }
        return released;
    }

    /** Records the renewals that took; returns the entries whose write was refused, still held as they were. */
    private List<Held> recordRenewals(List<Held> sent, List<Optional<NodeStat>> replies, Instant now, List<Lease> renewed) {
        return recordEach(sent, replies, (entry, reply) -> {
            if (reply.isEmpty() || !isGrantsNode(entry, reply.get())) {
                return false;
            }
            Lease lease = entry.lease().renewed(now);
            held.replace(entry, new Held(lease, reply.get().version(), entry.sessionId(), entry.token()));
            renewed.add(lease);
            return true;
        });
    }

    /** Forgets the entries released; returns those whose delete was refused, still held as they were. */
    private List<Held> recordReleases(List<Held> sent, List<Boolean> replies, List<Lease> released) {
        return recordEach(sent, replies, (entry, deleted) -> {
            if (deleted) {
                held.remove(entry);
                released.add(entry.lease());
            }
            return deleted;
        });
    }

    private static <R> List<Held> recordEach(List<Held> sent, List<R> replies, BiFunction<Held, R, Boolean> record) {
        List<Held> refused = new ArrayList<>();
        for (int i = 0; i < sent.size(); i++) {
            if (!record.apply(sent.get(i), replies.get(i))) {
                refused.add(sent.get(i));
            }
        }
        return refused;
    }

    /**
     * Reads back the nodes of {@code refused} writes: those still this grant's node come back with the
     * version read (and are held so), the others are forgotten and their leases added to {@code lost}.
     */
    private List<Held> stillOurs(LeaseNodeWrites writes, List<Held> refused, List<Lease> lost) {
        if (refused.isEmpty()) {
            return List.of();
        }
        List<Optional<NodeRead>> nodes = writes.read(refused);
        List<Held> ours = new ArrayList<>();
        for (int i = 0; i < refused.size(); i++) {
            Held entry = refused.get(i);
            Optional<NodeRead> node = nodes.get(i);
            if (node.isPresent() && isGrantsNode(entry, node.get().stat()) && node.get().token().equals(Optional.of(entry.token()))) {
                Held current = new Held(entry.lease(), node.get().stat().version(), entry.sessionId(), entry.token());
                held.replace(entry, current);
                ours.add(current);
            } else {
                held.remove(entry);
                lost.add(entry.lease());
            }
        }
        return ours;
    }

    /** Forgets entries refused twice; returns their leases. */
    private List<Lease> forget(List<Held> refusedAgain) {
        refusedAgain.forEach(held::remove);
        return refusedAgain.stream().map(Held::lease).toList();
    }

    /** Whether {@code stat} is of the node this grant created: its czxid is the fence's, its owner the grant's session. */
    private static boolean isGrantsNode(Held entry, NodeStat stat) {
        return stat.czxid() == Fences.czxidOf(entry.lease().fence()) && stat.ephemeralOwner() == entry.sessionId();
    }

    private void report(List<Lease> lost, LeaseLoss.Cause cause, String why) {
        if (!lost.isEmpty()) {
            lossReporter.accept(new LeaseLoss(lost, cause, "ZooKeeper at " + where + ": " + why));
        }
    }
}
