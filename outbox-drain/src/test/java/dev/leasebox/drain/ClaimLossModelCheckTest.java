package dev.leasebox.drain;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import dev.leasebox.claim.ClaimMode;
import dev.leasebox.claim.leased.LeasedOutboxClaimStore;
import dev.leasebox.claim.leased.LossInjectingLeaseManager;
import dev.leasebox.lease.Lease;
import dev.leasebox.lease.inmemory.InMemoryLeaseManager;
import dev.leasebox.outbox.ClaimCompletion;
import dev.leasebox.outbox.ClaimRequest;
import dev.leasebox.outbox.ClaimSelection;
import dev.leasebox.outbox.CompletionOutcome;
import dev.leasebox.outbox.ForwardingOutboxClaimStore;
import dev.leasebox.outbox.OutboxClaim;
import dev.leasebox.outbox.OutboxClaimStore;
import dev.leasebox.outbox.OutboxMessage;
import dev.leasebox.outbox.inmemory.InMemoryOutboxStore;
import dev.leasebox.provider.ErrorClassifier;
import dev.leasebox.provider.OutboxProvider;
import dev.leasebox.provider.ProviderOutcome;
import dev.leasebox.testkit.MutableClock;
import org.jetbrains.lincheck.Lincheck;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;

/**
 * A loss reported while a worker's claim is made, under the interleavings Lincheck's model checker explores,
 * over an in-memory outbox of one row and an in-memory coordinator. One thread makes the claim; the other
 * waits for the coordinator's grant (before it there is nothing to lose), then reports the grant lost at
 * whichever later point the checker runs it. Property: a loss reported after a grant reaches every later
 * emission and completion decision for it.
 * <ul>
 *   <li>The claim call of a recorded {@link LeasedOutboxClaimStore}: the report lands inside the coordinator
 *       call, during the database round trip or once the call returned. A row the call hands out under the
 *       lost grant must have been reported to the store's claim-loss listeners. (Lean claims put a grant in
 *       the held map the same way; {@code ClaimLossInterleavingTest} races them with a second worker.)</li>
 *   <li>A {@link ClaimingCycle}: it waits for the reporting thread once it announces its batch
 *       ({@link DrainListener#batchClaimed}), so the report comes before every decision of the batch, during
 *       the claim call or while the batch is set up. Nothing is emitted nor written under the lost grant's
 *       fence.</li>
 * </ul>
 *
 * <p>Finds the dropped loss of decision 0034 on the code before that fix: the claim call handed the row out
 * although its loss was reported between the grant and its entry in the held map, which the loss forwarder
 * read; and the cycle, which only marked batches already active, emitted and completed it. The model-checked
 * rounds {@code ClaimLossInterleavingTest} had did not find it: the checker completed only three
 * interleavings of them per run, whatever the number asked, none with the report before the batch was
 * announced.
 */
class ClaimLossModelCheckTest {

    /** Interleavings explored per test; {@code -Dmodelcheck.invocations=N} explores more (or fewer). */
    private static final int INVOCATIONS = Integer.getInteger("modelcheck.invocations", 50);
    /**
     * For the claiming cycle, a tenth as many: each of its interleavings runs a whole cycle, and the steps it
     * adds to the claim call's (the batch's set-up) are few; the claim call is explored by the claim-call test.
     */
    private static final int CYCLE_INVOCATIONS = Math.max(1, INVOCATIONS / 10);
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final DrainOptions OPTIONS = DrainOptions.builder().owner("worker").batchSize(1).leaseDuration(LEASE)
            .renewalInterval(Duration.ofSeconds(10)).build();
    /** Parsed outside the checker: parsing one is thousands of steps it would explore. */
    private static final Instant START = Instant.parse("2026-01-01T00:00:00Z");
    /** Made outside the checker: a fresh message draws its idempotency key from SecureRandom. */
    private static final OutboxMessage MESSAGE = OutboxMessage.of("order.placed", "order-1".getBytes(StandardCharsets.UTF_8));

    private static Level logLevel;

    /**
     * The abandoned claims are logged at WARN in most interleavings, and the checker cannot schedule through
     * the appender's I/O; and the checker instruments the classes already loaded on its first run in a JVM,
     * which a trivial run pays for before the tests.
     */
    @BeforeAll
    static void quietAndInstrumentOnce() {
        Logger root = (Logger) LoggerFactory.getLogger("dev.leasebox");
        logLevel = root.getLevel();
        root.setLevel(Level.OFF);
        try {
            Lincheck.runConcurrentTest(1, () -> inThreads(() -> { }, () -> { }));
        } catch (AssertionError e) {
            // only the instrumentation was wanted
        }
    }

    @AfterAll
    static void restoreLogging() {
        ((Logger) LoggerFactory.getLogger("dev.leasebox")).setLevel(logLevel);
    }

    @Test
    void aLossReportedDuringARecordedClaimCallIsHeardOrItsRowIsNotHandedOut() {
        modelCheck(INVOCATIONS, () -> new ClaimCall(ClaimMode.RECORDED).run());
    }

    @Test
    void aLossReportedBeforeTheBatchIsSetUpReachesItsEmissionAndCompletionDecisions() {
        modelCheck(CYCLE_INVOCATIONS, () -> new Round(ClaimMode.RECORDED).run());
    }

    /**
     * Runs {@code scenario} once outside the model checker, then for one interleaving under it, so that class
     * initialization, call-site linking and the checker's own instrumentation of the classes involved are not
     * timed as part of an explored interleaving (on a loaded machine the first one can outlast the checker's
     * hang detection); then the model checker explores it and decides. A property broken in the warm-up is
     * found again there, with its interleaving.
     */
    private static void modelCheck(int invocations, Runnable scenario) {
        try {
            scenario.run();
            Lincheck.runConcurrentTest(1, scenario);
        } catch (AssertionError e) {
            // decided below
        }
        Lincheck.runConcurrentTest(invocations, scenario);
    }

    /**
     * One claim call of a worker's store over one row, and a reporting thread; rebuilt for every explored
     * interleaving. The decision here is the store's: it hands the row out, or not; a row handed out whose
     * loss was reported must have been reported to the store's claim-loss listeners.
     */
    private static final class ClaimCall {
        final MutableClock clock = new MutableClock(START);
        final InMemoryOutboxStore outbox = new InMemoryOutboxStore(clock);
        final LossInjectingLeaseManager leases = new LossInjectingLeaseManager(new InMemoryLeaseManager(clock));
        final CountDownLatch granted = new CountDownLatch(1);
        final ClaimMode mode;
        final OutboxClaimStore store;
        final List<Long> heardLost = new CopyOnWriteArrayList<>();
        volatile List<OutboxClaim> handedOut;
        volatile Lease reportedLost;

        ClaimCall(ClaimMode mode) {
            this.mode = mode;
            outbox.enqueue(MESSAGE);
            leases.onGrant(grants -> granted.countDown());
            store = LeasedOutboxClaimStore.builder(outbox, leases, clock).claimMode(mode).open();
            store.addClaimLossListener((ids, cause) -> heardLost.addAll(ids));
        }

        void run() {
            inThreads(() -> handedOut = store.claim(ClaimSelection.ELIGIBLE, new ClaimRequest("worker", 1, LEASE)),
                    () -> reportedLost = reportTheGrantLost(granted, leases, mode));
            Lease lost = reportedLost;
            for (OutboxClaim claim : handedOut) {
                check(claim.token() != lost.fence() || heardLost.contains(claim.entryId()), () -> "the claim call handed out entry "
                        + claim.entryId() + " under fence " + lost.fence() + ", whose loss was reported while the call ran, and "
                        + "no claim-loss listener heard of it (" + mode + ")");
            }
        }
    }

    /** Waits for the worker's grant, then reports it lost (in lean mode the coordinator forgets it); returns it. */
    private static Lease reportTheGrantLost(CountDownLatch granted, LossInjectingLeaseManager leases, ClaimMode mode) {
        try {
            granted.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        Lease lease = leases.granted().get(0);
        leases.reportLost(lease, mode == ClaimMode.LEAN);
        return lease;
    }

    /** One worker, one row, one reporting thread; rebuilt for every explored interleaving. */
    private static final class Round {
        final MutableClock clock = new MutableClock(START);
        final InMemoryOutboxStore outbox = new InMemoryOutboxStore(clock);
        final LossInjectingLeaseManager leases = new LossInjectingLeaseManager(new InMemoryLeaseManager(clock));
        /** Opens once the coordinator granted the worker the row, inside the coordinator call. */
        final CountDownLatch granted = new CountDownLatch(1);
        final ClaimMode mode;
        final List<Long> emittedUnder = new CopyOnWriteArrayList<>();
        final List<Long> writtenUnder = new CopyOnWriteArrayList<>();
        /** The grant reported lost, once its report reached every listener. */
        volatile Lease reportedLost;
        volatile Thread reporter;

        Round(ClaimMode mode) {
            this.mode = mode;
            outbox.enqueue(MESSAGE);
            leases.onGrant(grants -> granted.countDown());
        }

        void run() {
            ClaimingCycle cycle = cycle();
            reporter = new Thread(() -> reportedLost = reportTheGrantLost(granted, leases, mode));
            inThreads(new Thread(cycle::run), reporter);
            Lease lost = reportedLost;
            check(lost != null, () -> "the worker's grant was not reported lost");
            check(!emittedUnder.contains(lost.fence()), () -> "the row was emitted under fence " + lost.fence()
                    + " although the loss of that grant was reported before the emission was decided (" + mode + ")");
            check(!writtenUnder.contains(lost.fence()), () -> "a completion was written under fence " + lost.fence()
                    + " although the loss of that grant was reported before it was decided (" + mode + ")");
        }

        private ClaimingCycle cycle() {
            OutboxClaimStore claims = LeasedOutboxClaimStore.builder(outbox, leases, clock).claimMode(mode).open();
            OutboxClaimStore store = new ForwardingOutboxClaimStore(claims) {
                @Override
                public List<CompletionOutcome> completeAll(List<ClaimCompletion> completions) {
                    completions.forEach(c -> writtenUnder.add(c.claim().token()));
                    return super.completeAll(completions);
                }
            };
            DrainListener listener = new DrainListener() {
                @Override
                public void batchClaimed(int count) {
                    join(reporter); // every decision of the batch comes after the report
                }
            };
            OutboxProvider provider = envelope -> {
                emittedUnder.add(envelope.fence().getAsLong());
                return ProviderOutcome.delivered();
            };
            return new ClaimingCycle(store, OPTIONS, clock, new Emitter(provider, ErrorClassifier.allRetryable(), listener),
                    new CompletionPolicy(5, new Backoff(Duration.ofSeconds(1), Duration.ofMinutes(1), new SplittableRandom(1))), listener,
                    new NoRenewals(), () -> false, () -> false);
        }
    }

    private static void check(boolean property, Supplier<String> broken) {
        if (!property) {
            throw new AssertionError(broken.get());
        }
    }

    private static void inThreads(Runnable first, Runnable second) {
        inThreads(new Thread(first), new Thread(second));
    }

    private static void inThreads(Thread one, Thread two) {
        one.start();
        two.start();
        join(one);
        join(two);
    }

    private static void join(Thread thread) {
        try {
            thread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
