package dev.leasebox.drain;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import dev.leasebox.claim.ClaimMode;
import dev.leasebox.claim.leased.LeasedOutboxClaimStore;
import dev.leasebox.claim.leased.LossInjectingLeaseManager;
import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseManager;
import dev.leasebox.lease.inmemory.InMemoryLeaseManager;
import dev.leasebox.outbox.ClaimCompletion;
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
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Races the claim path's loss bookkeeping ({@link LeasedOutboxClaimStore} with its grants and loss
 * forwarding, and {@link ClaimingCycle}'s emission and completion decisions) over the in-memory outbox and
 * coordinator: in each round a worker's claim cycle runs against a thread that reports the worker's grant
 * lost as soon as the coordinator made it, so the report lands anywhere from inside the acquire to after the
 * emission; a thousand rounds per mode reach every step of the claim call.
 *
 * <p>Property checked: a loss reported after a grant reaches every later emission and completion decision
 * for it. Every decision of a batch comes after the cycle announces the batch ({@link DrainListener#claimed}),
 * so a grant whose loss report was back by then must be neither emitted nor completed; this covers the
 * claim call's coordinator and database round trips and the batch's set-up. In lean mode the loss also
 * frees the key in the coordinator (a session expiry) and a second worker claims the row: then no two
 * emissions of the row carry one fence. {@link ClaimLossModelCheckTest} explores the same race under a model
 * checker.
 */
class ClaimLossInterleavingTest {

    private static final int ROUNDS = 1_000;
    private static final Duration LEASE = Duration.ofSeconds(30);

    private static Level logLevel;

    @BeforeAll
    static void quiet() {
        Logger root = (Logger) LoggerFactory.getLogger("dev.leasebox");
        logLevel = root.getLevel();
        root.setLevel(Level.OFF); // the abandoned-claim warnings are expected by the hundred
    }

    @AfterAll
    static void restoreLogging() {
        ((Logger) LoggerFactory.getLogger("dev.leasebox")).setLevel(logLevel);
    }

    @Test
    void aLossReportedAfterARecordedGrantReachesEveryLaterEmissionAndCompletionDecision() {
        DrainOptions a = options("worker-a");
        for (int round = 0; round < ROUNDS; round++) {
            new Round(ClaimMode.RECORDED, a, null).run(round);
        }
    }

    @Test
    void aLossReportedAfterALeanGrantReachesEveryLaterDecisionWhileAnotherWorkerTakesTheRow() {
        DrainOptions a = options("worker-a");
        DrainOptions b = options("worker-b");
        for (int round = 0; round < ROUNDS; round++) {
            new Round(ClaimMode.LEAN, a, b).run(round);
        }
    }

    private static DrainOptions options(String owner) {
        return DrainOptions.builder().owner(owner).batchSize(1).leaseDuration(LEASE)
                .renewalInterval(Duration.ofSeconds(10)).build();
    }

    /** One round: fresh outbox, coordinator and workers. */
    private static final class Round {
        private final MutableClock clock = MutableClock.startingAt2026();
        private final InMemoryOutboxStore outbox = new InMemoryOutboxStore(clock);
        private final InMemoryLeaseManager coordinator = new InMemoryLeaseManager(clock);
        private final LossInjectingLeaseManager leasesOfA = new LossInjectingLeaseManager(coordinator);
        private final ClaimMode mode;
        private final DrainOptions optionsOfA;
        /** Null without a second worker. */
        private final DrainOptions optionsOfB;
        /** The grant whose loss was reported, set once the report has reached every listener. */
        private final AtomicReference<Lease> reportedLost = new AtomicReference<>();
        /**
         * The grant whose loss was reported before worker A's cycle announced its batch: the claim call and the
         * batch's set-up were still running, so every decision of the batch comes after the report.
         */
        private final AtomicReference<Lease> lostBeforeBatch = new AtomicReference<>();
        private final Queue<String> emissions = new ConcurrentLinkedQueue<>();
        private final Queue<String> violations = new ConcurrentLinkedQueue<>();
        private volatile boolean cycleOfADone;

        Round(ClaimMode mode, DrainOptions optionsOfA, DrainOptions optionsOfB) {
            this.mode = mode;
            this.optionsOfA = optionsOfA;
            this.optionsOfB = optionsOfB;
            outbox.enqueue(OutboxMessage.of("order.placed", "order-1".getBytes(StandardCharsets.UTF_8)));
        }

        void run(int round) {
            ClaimingCycle a = cycle(optionsOfA, leasesOfA, true);
            ClaimingCycle b = optionsOfB == null ? null : cycle(optionsOfB, coordinator, false);
            Thread claimA = new Thread(() -> {
                try {
                    a.run();
                } finally {
                    cycleOfADone = true;
                }
            });
            Thread loss = new Thread(this::reportFirstGrantLost);
            Thread claimB = new Thread(() -> {
                if (b != null) {
                    b.run();
                }
            });
            for (Thread t : List.of(claimA, loss, claimB)) {
                t.setUncaughtExceptionHandler((thread, e) -> violations.add("a thread of the round failed: " + e));
                t.start();
            }
            join(claimA);
            join(loss);
            join(claimB);
            if (!violations.isEmpty()) {
                throw new AssertionError("round " + round + ": " + String.join("; ", violations)
                        + " (emissions: " + emissions + ")");
            }
        }

        /**
         * Waits for worker A's grant (a loss is reported only after a grant: before, there is nothing to lose),
         * then reports it lost, wherever worker A's claim cycle is by then.
         */
        private void reportFirstGrantLost() {
            List<Lease> granted = leasesOfA.granted();
            while (granted.isEmpty() && !cycleOfADone) {
                Thread.onSpinWait();
                granted = leasesOfA.granted();
            }
            if (granted.isEmpty()) {
                return; // worker B took the row: A was never granted anything
            }
            Lease lease = granted.get(0);
            leasesOfA.reportLost(lease, mode == ClaimMode.LEAN);
            reportedLost.set(lease);
        }

        private ClaimingCycle cycle(DrainOptions options, LeaseManager leases, boolean watched) {
            String owner = options.owner();
            OutboxClaimStore claims = LeasedOutboxClaimStore.builder(outbox, leases, clock).claimMode(mode).open();
            OutboxClaimStore store = watched ? new CompletionWatch(claims) : claims;
            DrainListener listener = !watched ? new DrainListener() { } : new DrainListener() {
                @Override
                public void claimed(List<OutboxClaim> claims) {
                    lostBeforeBatch.set(reportedLost.get());
                }
            };
            OutboxProvider provider = envelope -> {
                long fence = envelope.fence().getAsLong();
                String emission = owner + "@" + fence;
                if (emissions.stream().anyMatch(e -> e.endsWith("@" + fence))) {
                    violations.add("entry " + envelope.entryId() + " emitted twice under fence " + fence);
                }
                emissions.add(emission);
                Lease lost = lostBeforeBatch.get();
                if (watched && lost != null && lost.fence() == fence) {
                    violations.add(owner + " emitted entry " + envelope.entryId() + " under fence " + fence
                            + " although the loss of that grant was reported before its batch was set up");
                }
                return ProviderOutcome.delivered();
            };
            return new ClaimingCycle(store, options, clock, new Emitter(provider, ErrorClassifier.allRetryable(), listener),
                    new CompletionPolicy(5, new Backoff(Duration.ofSeconds(1), Duration.ofMinutes(1))), listener,
                    new NoRenewals(), () -> false, () -> false);
        }

        /** Worker A's store, seen from the cycle: a completion sent after its grant's loss was reported is a violation. */
        private final class CompletionWatch extends ForwardingOutboxClaimStore {
            CompletionWatch(OutboxClaimStore delegate) {
                super(delegate);
            }

            @Override
            public List<CompletionOutcome> completeAll(List<ClaimCompletion> completions) {
                Lease lost = lostBeforeBatch.get();
                for (ClaimCompletion c : completions) {
                    if (lost != null && lost.fence() == c.claim().token()) {
                        violations.add("worker-a wrote " + c.completion().getClass().getSimpleName() + " for entry "
                                + c.claim().entryId() + " under fence " + c.claim().token()
                                + " although the loss of that grant was reported before its batch was set up");
                    }
                }
                return super.completeAll(completions);
            }
        }

        private static void join(Thread t) {
            try {
                t.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while joining " + t.getName(), e);
            }
        }
    }
}
