package dev.leasebox.claim.partition;

import dev.leasebox.claim.ClaimMode;
import dev.leasebox.lease.ForwardingLeaseManager;
import dev.leasebox.lease.LeaseLossListener;
import dev.leasebox.lease.inmemory.InMemoryLeaseManager;
import dev.leasebox.outbox.ClaimRequest;
import dev.leasebox.outbox.ClaimSelection;
import dev.leasebox.outbox.Completion;
import dev.leasebox.outbox.EmissionError;
import dev.leasebox.outbox.OutboxClaim;
import dev.leasebox.outbox.OutboxClaimStore;
import dev.leasebox.testkit.MutableClock;
import org.jetbrains.lincheck.Lincheck;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Lean partition claims under every interleaving the model checker finds of one drain loop (claim, renew,
 * claim, complete with a retryable failure, claim), a blip of the coordinator connection (suspended, then
 * restored on the same session, the slot lease never lapsing) and the keeper's tick (renew, re-grant), over
 * an in-memory coordinator and an in-memory table. Property: no row is handed out while an earlier emission
 * of it may be in flight, and no row is ever handed out twice under one token.
 */
class LeanPartitionClaimsModelCheckTest {

    private static final Duration TTL = Duration.ofSeconds(30);
    private static final int INVOCATIONS = Integer.getInteger("modelcheck.invocations", 50);

    @Test
    void noRowIsHandedOutTwiceUnderOneFenceNorWhileItsEmissionIsInFlight() {
        new World().drainLoop(new ArrayList<>()); // loads and initialises the classes (and logging) outside the checker
        ch.qos.logback.classic.Logger logs = (ch.qos.logback.classic.Logger) LoggerFactory.getLogger("dev.leasebox");
        ch.qos.logback.classic.Level level = logs.getLevel();
        logs.setLevel(ch.qos.logback.classic.Level.OFF); // the checker cannot schedule through the appender's I/O
        try {
            check();
        } finally {
            logs.setLevel(level);
        }
    }

    private static void check() {
        Lincheck.runConcurrentTest(INVOCATIONS, () -> {
            World w = new World();
            List<String> violations = new CopyOnWriteArrayList<>();
            Thread drain = new Thread(() -> w.drainLoop(violations));
            Thread blip = new Thread(() -> {
                w.coordinator.suspend();
                w.coordinator.restore();
            });
            Thread ticker = new Thread(w.keeper::tick);
            drain.start();
            blip.start();
            ticker.start();
            join(drain);
            join(blip);
            join(ticker);
            if (!violations.isEmpty()) {
                throw new AssertionError(String.join("; ", violations));
            }
        });
    }

    private static void join(Thread t) {
        try {
            t.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while joining " + t.getName(), e);
        }
    }

    /** One worker over one slot and one row, rebuilt for every explored interleaving. */
    private static final class World {
        final MutableClock clock = MutableClock.startingAt2026();
        final InMemorySlotTable table = new InMemorySlotTable(1);
        final SuspendableCoordinator coordinator = new SuspendableCoordinator(new InMemoryLeaseManager(clock));
        final SlotLeaseKeeper keeper;
        final PartitionedOutboxClaimStore store;
        /** Tokens of the emissions that may still be in flight, by row. */
        final Map<Long, Long> emitting = new HashMap<>();
        /** Every (row, token) handed out so far. */
        final List<String> handedOut = new ArrayList<>();

        World() {
            table.insert(1, clock.instant());
            keeper = new SlotLeaseKeeper(table, coordinator, new LoneWorker(), "w", TTL, TTL.dividedBy(3), () -> 0L, clock);
            store = PartitionedOutboxClaimStore.over(unusedRowStore(), table, keeper, false, ClaimMode.LEAN, TTL, clock);
            keeper.tick();
        }

        void drainLoop(List<String> violations) {
            List<OutboxClaim> first = claim(violations);
            store.renewClaims(first, TTL);
            claim(violations);
            for (OutboxClaim c : first) {
                store.complete(c, new Completion.Failed(EmissionError.retryable("503", "the downstream's ack was lost"),
                        Optional.of(clock.instant())));
                emitting.remove(c.entryId());
            }
            claim(violations);
        }

        List<OutboxClaim> claim(List<String> violations) {
            List<OutboxClaim> claims = store.claim(ClaimSelection.ELIGIBLE, new ClaimRequest("w", 10, TTL));
            for (OutboxClaim c : claims) {
                Long earlier = emitting.put(c.entryId(), c.token());
                if (earlier != null) {
                    violations.add("row " + c.entryId() + " handed out under " + c.token() + " while its emission under "
                            + earlier + " may be in flight");
                }
                String key = c.entryId() + "@" + c.token();
                if (handedOut.contains(key)) {
                    violations.add("row " + c.entryId() + " handed out twice under fence " + c.token());
                }
                handedOut.add(key);
            }
            return claims;
        }
    }

    private static OutboxClaimStore unusedRowStore() {
        return (OutboxClaimStore) Proxy.newProxyInstance(OutboxClaimStore.class.getClassLoader(),
                new Class<?>[] {OutboxClaimStore.class}, (proxy, method, args) -> {
                    throw new UnsupportedOperationException("lean partition claims do not use the row store for " + method);
                });
    }

    /** Membership of one worker. */
    private static final class LoneWorker implements WorkerGroup {
        @Override
        public List<String> heartbeat(String owner, Duration ttl) {
            return List.of(owner);
        }

        @Override
        public void leave(String owner) {
        }

        @Override
        public String describe() {
            return "one worker";
        }
    }

    /** The in-memory coordinator, whose connection can be reported suspended and restored (leases untouched). */
    private static final class SuspendableCoordinator extends ForwardingLeaseManager {
        private final List<LeaseLossListener> listeners = new CopyOnWriteArrayList<>();

        SuspendableCoordinator(InMemoryLeaseManager delegate) {
            super(delegate);
        }

        @Override
        public void addLeaseLossListener(LeaseLossListener listener) {
            listeners.add(listener);
            super.addLeaseLossListener(listener);
        }

        void suspend() {
            listeners.forEach(l -> l.connectionSuspended("connection to the coordinator lost"));
        }

        void restore() {
            listeners.forEach(l -> l.connectionRestored("reconnected on the same session"));
        }
    }
}
