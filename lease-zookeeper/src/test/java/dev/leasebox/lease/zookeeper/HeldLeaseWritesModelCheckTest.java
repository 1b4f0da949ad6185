package dev.leasebox.lease.zookeeper;

import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseLoss;
import dev.leasebox.lease.LeaseManagerException;
import dev.leasebox.lease.LeaseRequest;
import org.jetbrains.lincheck.Lincheck;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;

/**
 * The ZooKeeper manager's renew and release bookkeeping ({@link HeldLeaseWrites}) under every interleaving
 * a model checker explores, over lease nodes in memory ({@link InMemoryLeaseNodes}) whose writes are
 * version-checked and can take effect and then time out. Properties: a holder's own concurrent renewals
 * never report its lease lost; no reply, stale or timed out, makes the manager forget a node it still owns.
 */
class HeldLeaseWritesModelCheckTest {

    /** Interleavings explored per test; {@code -Dmodelcheck.invocations=N} explores more (or fewer). */
    private static final int INVOCATIONS = Integer.getInteger("modelcheck.invocations", 50);
    private static final long SESSION = 0x5e55L;
    /** A fixed incarnation token: random ones would draw on SecureRandom inside the checked code. */
    private static final String TOKEN = "0123456789abcdef0123456789abcdef";
    private static final Clock CLOCK = Clock.fixed(Instant.parse("2030-01-01T00:00:00Z"), ZoneOffset.UTC);

    /** One manager's bookkeeping over one node, and what it reported. */
    private static final class Holder {
        final HeldLeases held = new HeldLeases();
        final List<LeaseLoss> losses = new CopyOnWriteArrayList<>();
        final InMemoryLeaseNodes nodes = new InMemoryLeaseNodes();
        final HeldLeaseWrites writes = new HeldLeaseWrites(CLOCK, CLOCK, "memory", held, losses::add, () -> WritePause.NONE, 4);
        final Lease lease = new LeaseRequest(List.of("row-group-1"), "holder", Duration.ofSeconds(30))
                .grant("row-group-1", Fences.of(0x1234L, 0), CLOCK.instant());

        Holder() {
            nodes.grant(lease, SESSION, TOKEN, held);
        }

        List<Lease> renew() {
            return writes.renew(nodes, List.of(lease));
        }

        List<Lease> renewThroughTimeout() {
            try {
                return renew();
            } catch (LeaseManagerException e) {
                return List.of();
            }
        }

        /** Whether this manager's bookkeeping and the node agree: held exactly while the node stands, at its version. */
        String mismatch() {
            Optional<Integer> version = held.find(lease).map(HeldLeases.Held::version);
            return version.equals(nodes.version(lease.key())) ? ""
                    : "the manager holds the lease at version " + version + " while the node stands at " + nodes.version(lease.key());
        }
    }

    private static void inThreads(Runnable first, Runnable second) {
        Thread one = new Thread(first);
        Thread two = new Thread(second);
        one.start();
        two.start();
        try {
            one.join();
            two.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /**
     * The model checker instruments the classes already loaded on its first run in a JVM; on a loaded machine
     * that run outlasts its hang detection whatever it checks. A trivial run pays for it before the tests.
     */
    @BeforeAll
    static void instrumentOnce() {
        try {
            Lincheck.runConcurrentTest(1, () -> inThreads(() -> { }, () -> { }));
        } catch (AssertionError e) {
            // only the instrumentation was wanted
        }
    }

    /**
     * Runs {@code scenario} once outside the model checker, then for one interleaving under it, so that class
     * initialization, call-site linking and the checker's own instrumentation of the classes involved are not
     * timed as part of an explored interleaving (on a loaded machine the first one can outlast the checker's
     * hang detection); then the model checker explores it and decides. A property broken in the warm-up is
     * found again there, with its interleaving.
     */
    private static void modelCheck(Runnable scenario) {
        try {
            scenario.run();
            Lincheck.runConcurrentTest(1, scenario);
        } catch (AssertionError e) {
            // decided below
        }
        Lincheck.runConcurrentTest(INVOCATIONS, scenario);
    }

    private static void check(boolean property, Supplier<String> broken) {
        if (!property) {
            throw new AssertionError(broken.get());
        }
    }

    @Test
    void twoConcurrentRenewalsByTheHolderAreBothRenewedAndReportNothing() {
        modelCheck(() -> {
            Holder holder = new Holder();
            int[] renewed = new int[2];
            inThreads(() -> renewed[0] = holder.renew().size(), () -> renewed[1] = holder.renew().size());
            check(holder.losses.isEmpty(), () -> "the holder's own renewals reported its lease lost: " + holder.losses);
            check(renewed[0] == 1 && renewed[1] == 1, () -> "renewed " + renewed[0] + " and " + renewed[1] + " of 1");
            check(holder.mismatch().isEmpty(), holder::mismatch);
        });
    }

    @Test
    void aRenewalThatTookEffectAndTimedOutLeavesTheNextRenewalsRenewed() {
        modelCheck(() -> {
            Holder holder = new Holder();
            holder.nodes.timeOutAfterEffect(1);
            inThreads(holder::renewThroughTimeout, holder::renewThroughTimeout);
            List<Lease> after = holder.renew();
            check(holder.losses.isEmpty(), () -> "a renewal whose outcome was unknown made a later one report the lease lost: "
                    + holder.losses);
            check(after.size() == 1, () -> "the renewal after it renewed " + after.size() + " of 1");
            check(holder.mismatch().isEmpty(), holder::mismatch);
        });
    }

    @Test
    void aReleaseConcurrentWithARenewalNeverLeavesTheNodeStandingUnheld() {
        modelCheck(() -> {
            Holder holder = new Holder();
            int[] released = new int[1];
            inThreads(holder::renew, () -> released[0] = holder.writes.release(holder.nodes, List.of(holder.lease)).size());
            check(released[0] == 1, () -> "the release released " + released[0] + " of 1 while the holder held the lease");
            check(holder.mismatch().isEmpty(), holder::mismatch);
        });
    }
}
