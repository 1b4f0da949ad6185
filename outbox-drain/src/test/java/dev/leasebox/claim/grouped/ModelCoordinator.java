package dev.leasebox.claim.grouped;

import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseLoss;
import dev.leasebox.lease.LeaseLossListener;
import dev.leasebox.lease.LeaseManager;
import dev.leasebox.lease.LeaseManagerException;
import dev.leasebox.lease.LeaseRequest;

import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;

/**
 * A coordinator in memory for model checking, behind the lease contract: each call is atomic; a renewal or
 * release takes effect only for the exact grant (key, owner, fence) still held, every write bumping the
 * lease's version; a renewal that finds its lease gone reports it lost. Faults: a call can be made to take
 * effect and then fail as a timeout does ({@link #timeOutAfterEffect}), and a lease can be lost at any point
 * ({@link #lose}: another holder took it after its expiry), which is reported to the listeners. Renewals can
 * be made version-checked writes that cross ({@link #crossRenewals}), as two ZooKeeper {@code setData} calls
 * of one holder sent at one version do: the second write is refused, and its lease comes back absent although
 * the holder still holds it, with no loss reported (what the ZooKeeper manager did before it serialized a
 * lease's writes, decision 0037). No time passes: leases end only by release or loss.
 */
final class ModelCoordinator implements LeaseManager {

    /** Who holds a key: the grant and how many writes it has seen. */
    record Holder(String owner, long fence, int version) {
    }

    private final Clock clock;
    private final Map<String, Holder> holders = new HashMap<>();
    private final List<LeaseLossListener> listeners = new CopyOnWriteArrayList<>();
    /** The names of the calls ("acquire", "renew", "release") whose next occurrence takes effect, then times out. */
    private final Set<String> timingOut = new HashSet<>();
    /** Grants made by calls whose caller got a timeout instead: they end by their ttl, by design. */
    private final Set<Long> unknownOutcome = new HashSet<>();
    private long lastFence;
    private volatile boolean versionChecked;
    /** Holds back the writes of crossing renewals until each of them has read its version. */
    private volatile CountDownLatch crossing = new CountDownLatch(0);

    ModelCoordinator(Clock clock) {
        this.clock = clock;
    }

    /** The next {@code call} ("acquire", "renew" or "release") takes effect, then fails as a timeout. */
    synchronized ModelCoordinator timeOutAfterEffect(String call) {
        timingOut.add(call);
        return this;
    }

    /**
     * Renewals become version-checked writes: each reads the version of its leases, then writes at it, and a
     * write whose version moved meanwhile is refused (absent from the result, not reported lost). The next
     * {@code count} renewals cross: none writes before all of them have read.
     */
    ModelCoordinator crossRenewals(int count) {
        crossing = new CountDownLatch(count);
        versionChecked = true;
        return this;
    }

    @Override
    public List<Lease> acquire(LeaseRequest request) {
        List<Lease> granted = new ArrayList<>();
        synchronized (this) {
            for (String key : request.keys()) {
                if (granted.size() < request.maxGrants() && !holders.containsKey(key)) {
                    long fence = ++lastFence;
                    holders.put(key, new Holder(request.owner(), fence, 0));
                    granted.add(request.grant(key, fence, clock.instant()));
                }
            }
            if (timingOut.remove("acquire")) {
                granted.forEach(lease -> unknownOutcome.add(lease.fence()));
                throw timeout("acquire");
            }
        }
        return granted;
    }

    @Override
    public List<Lease> renew(Collection<Lease> leases) {
        Map<String, Integer> versionsRead = new HashMap<>();
        boolean checked = versionChecked;
        if (checked) {
            synchronized (this) {
                for (Lease lease : leases) {
                    Optional.ofNullable(holders.get(lease.key())).ifPresent(h -> versionsRead.put(lease.key(), h.version()));
                }
            }
            CountDownLatch crossed = crossing;
            crossed.countDown();
            awaitQuietly(crossed);
        }
        List<Lease> renewed = new ArrayList<>();
        List<Lease> lost = new ArrayList<>();
        synchronized (this) {
            for (Lease lease : leases) {
                Holder holder = holders.get(lease.key());
                if (checked && isHeld(holder, lease) && !Integer.valueOf(holder.version()).equals(versionsRead.get(lease.key()))) {
                    continue; // refused: another write moved the version; the holder still holds it, nothing is reported
                }
                if (isHeld(holder, lease)) {
                    holders.put(lease.key(), new Holder(holder.owner(), holder.fence(), holder.version() + 1));
                    renewed.add(lease.renewed(clock.instant()));
                } else {
                    lost.add(lease);
                }
            }
            if (timingOut.remove("renew")) {
                throw timeout("renew");
            }
        }
        report(lost, LeaseLoss.Cause.RENEWAL_REFUSED);
        return renewed;
    }

    @Override
    public List<Lease> release(Collection<Lease> leases) {
        List<Lease> released = new ArrayList<>();
        synchronized (this) {
            for (Lease lease : leases) {
                if (isHeld(holders.get(lease.key()), lease)) {
                    holders.remove(lease.key());
                    released.add(lease);
                }
            }
            if (timingOut.remove("release")) {
                throw timeout("release");
            }
        }
        return released;
    }

    /** Another holder took {@code key} after its expiry: whoever held it lost it, and is told so. */
    void lose(String key, String owner) {
        Lease lost;
        synchronized (this) {
            Holder holder = holders.get(key);
            if (holder == null || !holder.owner().equals(owner)) {
                return;
            }
            holders.put(key, new Holder("another worker", ++lastFence, 0));
            lost = new Lease(key, owner, holder.fence(), clock.instant(), java.time.Duration.ofSeconds(1), clock.instant());
        }
        report(List.of(lost), LeaseLoss.Cause.SESSION_EXPIRED);
    }

    /** Who holds {@code key} now, unless its grant's caller never learned of it (it ends by its ttl). */
    synchronized Optional<Holder> knownHolder(String key) {
        return Optional.ofNullable(holders.get(key)).filter(h -> !unknownOutcome.contains(h.fence()));
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static boolean isHeld(Holder holder, Lease lease) {
        return holder != null && holder.owner().equals(lease.owner()) && holder.fence() == lease.fence();
    }

    private static LeaseManagerException timeout(String call) {
        return new LeaseManagerException(call + " got no reply within the timeout; its outcome is unknown");
    }

    private void report(List<Lease> lost, LeaseLoss.Cause cause) {
        if (!lost.isEmpty()) {
            LeaseLoss loss = new LeaseLoss(lost, cause, "model coordinator");
            listeners.forEach(listener -> listener.leasesLost(loss));
        }
    }

    @Override
    public void addLeaseLossListener(LeaseLossListener listener) {
        listeners.add(listener);
    }

    @Override
    public String describe() {
        return "model coordinator";
    }

    @Override
    public void close() {
    }
}
