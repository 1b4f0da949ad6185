package dev.leasebox.drain;

import dev.leasebox.provider.ErrorClassifier;
import dev.leasebox.provider.OutboxProvider;
import dev.leasebox.wakeup.WakeUp;

import dev.leasebox.outbox.OutboxClaimStore;
import dev.leasebox.outbox.OutboxStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.random.RandomGenerator;

/**
 * Drains an outbox: takes eligible entries, hands each to an {@link OutboxProvider}, and writes what
 * became of it.
 *
 * <h2>Guarantees (claim path, {@code useClaimLeases = true}, the default)</h2>
 * <ul>
 *   <li><b>At-least-once, never exactly-once.</b> Every entry ends DELIVERED or DEAD_LETTERED, or stays
 *       eligible. An entry is emitted again when a claim expired or was lost after its emission began,
 *       or when its result could not be written; every emission carries the entry's idempotency key.</li>
 *   <li><b>Claim before emit.</b> An entry is emitted only after the store returned a claim on it to this
 *       drain, and only while that claim stands: not reported lost by the store, not left out of a
 *       renewal, and the drain's {@link Clock} before the claim's expiry minus the safety margin.
 *       A drain that cannot claim an entry never emits it.</li>
 *   <li><b>No stale finalization.</b> A result is written only under its claim's token, in one
 *       {@code completeAll} per batch. A claim lost during its emission is abandoned: nothing is written.
 *       A write the store refuses (the row was reclaimed with a newer token, or is terminal) changes
 *       nothing; it is counted in {@link CycleResult#stale()} and reported, never retried or thrown.</li>
 * </ul>
 * Claims of an in-flight batch are renewed every {@code renewalInterval} on a scheduler thread, one
 * store call per batch. While the store reports claims at risk, no emission starts.
 *
 * <p><b>Non-claiming path</b> ({@code useClaimLeases = false}): select, emit, {@code save}, with no
 * claims. Concurrent workers may emit the same entry at the same time; see {@link DrainOptions}.
 *
 * <h2>Running it</h2>
 * {@link #runOnce()} runs one cycle on the caller's thread (deterministic, for tests and schedulers);
 * {@link #start()} runs {@code concurrency} polling loops on their own threads, backing off while idle;
 * {@link #close()} stops claiming, lets in-flight emissions finish for up to {@code shutdownTimeout},
 * and hands back claims not yet emitted.
 *
 * <h2>Wake-ups</h2>
 * {@link #wakeUp(WakeUp)} tells an idle loop that entries may be waiting; it runs a cycle at once instead
 * of at the end of its idle wait. A hint given while every loop runs a cycle makes one of them run once more
 * right after, so a commit that a running cycle's query could not see is looked for then. Hints only
 * change when loops look, never what they take: every entry is still claimed through the store, and
 * polling stays the safety net for hints that never come. With {@link Builder#wakeUps(boolean)} on, only
 * the first loop polls while idle; the others wait for hints, and a loop that takes a full batch wakes
 * one more, so an idle drain issues one loop's polls whatever its concurrency.
 */
public final class OutboxDrain implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(OutboxDrain.class);

    /** The drain's lifecycle. */
    public enum State {
        /** Built; {@link #runOnce()} may be called, loops not started. */
        NEW,
        /** Polling loops running. */
        RUNNING,
        /** {@link #close()} was called: no new claims, in-flight emissions finishing. */
        STOPPING,
        /** Closed. */
        CLOSED
    }

    private final DrainOptions options;
    private final DrainCycle cycle;
    private final DrainListener listener;
    private final ScheduledExecutorService renewals;
    private final DrainLifecycle lifecycle;
    private final WakeSignal wakeSignal = new WakeSignal();
    private final boolean wakeUps;
    private final List<Thread> loops = new ArrayList<>();
    private volatile WakeUpFeed feed; // set once by the builder, before the drain is handed out

    private OutboxDrain(Builder b) {
        this.options = b.options;
        this.lifecycle = new DrainLifecycle(options.owner());
        this.listener = new SafeListener(b.listener);
        this.renewals = newRenewalScheduler(options.owner());
        this.wakeUps = b.wakeUps;
        Emitter emitter = new Emitter(b.provider, b.classifier, listener);
        CompletionPolicy policy = new CompletionPolicy(options.maxAttempts(),
                new Backoff(options.initialBackoff(), options.backoffMultiplier(), options.maxBackoff(),
                        options.backoffJitter(), b.random), options.whenAttemptsExhausted());
        DrainListener cycleListener = wakeUps ? DrainListener.all(listener, handOffFullBatches()) : listener;
        if (options.useClaimLeases()) {
            this.cycle = new ClaimingCycle(b.claims, options, b.clock, emitter, policy, cycleListener,
                    renewals, lifecycle::stopRequested, lifecycle::halted);
        } else {
            log.warn("OutboxDrain {} runs the non-claiming path (useClaimLeases=false): concurrent workers may emit "
                    + "the same entry; run one worker or disjoint slices", options.owner());
            this.cycle = new SelectingCycle(b.selection, options, b.clock, emitter, policy, cycleListener,
                    lifecycle::stopRequested);
        }
    }

    /** A loop that claims a full batch wakes a waiting loop before it emits: more may be waiting behind it. */
    private DrainListener handOffFullBatches() {
        return new DrainListener() {
            @Override
            public void batchClaimed(int count) {
                if (count >= options.batchSize()) {
                    wakeSignal.handOff();
                }
            }
        };
    }

    public static Builder builder() {
        return new Builder();
    }

    private static ScheduledExecutorService newRenewalScheduler(String owner) {
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread t = Executors.defaultThreadFactory().newThread(runnable);
            t.setName("leasebox-drain-renewal-" + owner);
            t.setDaemon(true);
            return t;
        });
        executor.setRemoveOnCancelPolicy(true);
        return executor;
    }

    /**
     * Runs exactly one cycle on the calling thread: claim one batch, emit it, write its results.
     *
     * @throws IllegalStateException when the drain is stopping or closed
     * @throws RuntimeException      what the store threw while claiming (nothing was emitted then)
     */
    public CycleResult runOnce() {
        lifecycle.enter();
        try {
            return cycle.run();
        } finally {
            lifecycle.exit();
        }
    }

    /**
     * Runs cycles on the calling thread until one takes nothing, at most {@code maxCycles}; returns the
     * sum. Entries deferred or scheduled for retry in the future are not waited for.
     */
    public CycleResult drainUntilIdle(int maxCycles) {
        if (maxCycles < 1) {
            throw new IllegalArgumentException("maxCycles must be at least 1, was " + maxCycles);
        }
        CycleResult total = CycleResult.EMPTY;
        for (int i = 0; i < maxCycles; i++) {
            CycleResult r = runOnce();
            total = total.plus(r);
            if (r.isIdle()) {
                break;
            }
        }
        return total;
    }

    /** Starts {@code concurrency} polling loops, each on its own thread. */
    public synchronized void start() {
        if (!lifecycle.start()) {
            throw new IllegalStateException("OutboxDrain " + options.owner() + " cannot start: it is " + lifecycle.state());
        }
        for (int i = 0; i < options.concurrency(); i++) {
            boolean polls = !wakeUps || i == 0;
            Thread t = new Thread(() -> pollLoop(polls), "leasebox-drain-" + options.owner() + "-" + i);
            t.setDaemon(true);
            loops.add(t);
            t.start();
        }
        if (feed != null) {
            feed.start();
        }
        log.info("OutboxDrain {} started {} loops (useClaimLeases={}, batchSize={}, leaseDuration={}, wakeUps={})",
                options.owner(), options.concurrency(), options.useClaimLeases(), options.batchSize(),
                options.leaseDuration(), wakeUps);
    }

    /**
     * Entries may be waiting: an idle loop looks now (or, for {@link WakeUp#COMMIT_PENDING}, shortly and a few
     * times). Cheap and safe to call from any thread, any number of times; does nothing once the drain stops.
     */
    public void wakeUp(WakeUp hint) {
        wakeSignal.wake(Objects.requireNonNull(hint, "hint"));
    }

    /** @param polls false: while idle, wait for hints and hand-offs only (wake-ups on, not the first loop) */
    private void pollLoop(boolean polls) {
        IdleWaits waits = new IdleWaits(options.idlePollMin(), options.idlePollMax(), polls);
        while (!lifecycle.stopRequested()) {
            CycleResult result;
            try {
                result = runCycle();
            } catch (RuntimeException e) {
                log.warn("OutboxDrain {}: a cycle failed ({}); trying again in {}", options.owner(), e.toString(),
                        waits.next().map(Duration::toString).orElse("the next wake-up"));
                listener.cycleFailed(e);
                result = CycleResult.EMPTY;
            }
            if (!result.isIdle()) {
                waits.busy();
                continue;
            }
            listener.idlePoll();
            if (!awaitIdle(waits)) {
                return;
            }
        }
    }

    /** Waits out one idle wait, or until a hint; false when the drain stops. */
    private boolean awaitIdle(IdleWaits waits) {
        WakeSignal.Outcome outcome = wakeSignal.await(waits.next());
        while (outcome == WakeSignal.Outcome.COMMIT_PENDING) {
            waits.commitPending(); // nothing to see before the commit: the burst's first wait, then look
            outcome = wakeSignal.await(waits.next());
        }
        if (outcome == WakeSignal.Outcome.TIMED_OUT) {
            waits.timedOut();
        }
        return outcome != WakeSignal.Outcome.STOPPED;
    }

    private CycleResult runCycle() {
        lifecycle.enterLoopCycle();
        try {
            return cycle.run();
        } finally {
            lifecycle.exit();
        }
    }

    /**
     * Graceful shutdown: no new claims; each in-flight cycle finishes the emission it is in, hands back
     * its claims not yet emitted and writes its results. Waits up to {@code shutdownTimeout} for that;
     * loops still busy then are interrupted and their claims lapse at expiry. Idempotent.
     */
    @Override
    public void close() {
        if (!lifecycle.beginStopping()) {
            return;
        }
        closeFeed();
        wakeSignal.stop();
        long deadline = System.nanoTime() + options.shutdownTimeout().toNanos();
        boolean finished = awaitCyclesUntil(deadline);
        if (!finished) {
            log.warn("OutboxDrain {}: in-flight emissions did not finish within shutdownTimeout={}; interrupting them. "
                    + "Their claims are reclaimed after expiry", options.owner(), options.shutdownTimeout());
            synchronized (this) {
                loops.forEach(Thread::interrupt);
            }
        }
        renewals.shutdownNow();
        lifecycle.closed();
        log.info("OutboxDrain {} closed", options.owner());
    }

    private boolean awaitCyclesUntil(long deadlineNanos) {
        List<Thread> started;
        synchronized (this) {
            started = List.copyOf(loops);
        }
        try {
            for (Thread t : started) {
                long left = deadlineNanos - System.nanoTime();
                if (left > 0) {
                    TimeUnit.NANOSECONDS.timedJoin(t, left);
                }
            }
            if (!lifecycle.awaitNoCyclesUntil(deadlineNanos)) {
                return false;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
        return started.stream().noneMatch(Thread::isAlive);
    }

    /**
     * Stops at once, as a crash would: no further completion, release or renewal is sent; the claims
     * this drain holds lapse at their expiry and are reclaimed by others with higher fences. For demos
     * and fault-injection tests, through {@code dev.leasebox.testing.Crash}: not API; a real shutdown is
     * {@link #close()}. Returns when its threads are gone (at most a few seconds, for a provider call that
     * ignores interruption).
     */
    void halt() {
        if (!lifecycle.beginHalt()) {
            return;
        }
        closeFeed();
        wakeSignal.stop();
        renewals.shutdownNow();
        List<Thread> started;
        synchronized (this) {
            started = List.copyOf(loops);
        }
        started.forEach(Thread::interrupt);
        try {
            for (Thread t : started) {
                t.join(TimeUnit.SECONDS.toMillis(5));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        lifecycle.closed();
        log.warn("OutboxDrain {} halted: its claims lapse at expiry", options.owner());
    }

    private void closeFeed() {
        WakeUpFeed f = feed;
        if (f != null) {
            try {
                f.close();
            } catch (RuntimeException e) { // stopping: the drain's own shutdown goes on
                log.warn("OutboxDrain {}: closing its wake-ups failed: {}", options.owner(), e.toString());
            }
        }
    }

    public State state() {
        return lifecycle.state();
    }

    public DrainOptions options() {
        return options;
    }

    /** Builds an {@link OutboxDrain}; {@link #build()} validates the whole configuration. */
    public static final class Builder {
        private OutboxClaimStore claims;
        private OutboxStore selection;
        private OutboxProvider provider;
        private DrainOptions options;
        private Clock clock = dev.leasebox.lease.MonotonicClock.system();
        private DrainListener listener = DrainListener.NO_OP;
        private ErrorClassifier classifier = ErrorClassifier.allRetryable();
        private RandomGenerator random = new SplittableRandom();
        private boolean wakeUps;
        private Function<OutboxDrain, ? extends WakeUpFeed> feed;

        private Builder() {
        }

        /**
         * Where the drain's wake-ups come from, which implies {@link #wakeUps(boolean) wakeUps(true)}: {@code feed} is
         * given the built drain (to call {@link OutboxDrain#wakeUp} on), is started by {@link OutboxDrain#start()} and
         * closed with the drain.
         */
        public Builder wakeUpsFrom(Function<OutboxDrain, ? extends WakeUpFeed> feed) {
            this.feed = Objects.requireNonNull(feed, "feed");
            this.wakeUps = true;
            return this;
        }

        /**
         * Whether {@link #wakeUp(WakeUp) wake-ups} will come (default false): then only the first loop polls while
         * idle, at the idle backoff; the others wait for hints, and a loop that takes a full batch wakes one
         * more. Off, every loop polls on its own, as a drain that no one wakes must.
         */
        public Builder wakeUps(boolean wakeUps) {
            this.wakeUps = wakeUps;
            return this;
        }

        /** The outbox the drain claims from (the claim path, {@code useClaimLeases = true}, the default). */
        public Builder store(OutboxClaimStore store) {
            this.claims = Objects.requireNonNull(store, "store");
            return this;
        }

        /**
         * The outbox for the non-claiming compatibility path ({@code useClaimLeases = false}): entries are
         * selected, not claimed, so concurrent workers may emit the same entry. A {@link #store claim store}
         * that is also an {@link OutboxStore} serves this path without this call.
         */
        public Builder selectionOnlyStore(OutboxStore store) {
            this.selection = Objects.requireNonNull(store, "store");
            return this;
        }

        public Builder provider(OutboxProvider provider) {
            this.provider = Objects.requireNonNull(provider, "provider");
            return this;
        }

        /** Defaults to {@link DrainOptions#defaults()}. */
        public Builder options(DrainOptions options) {
            this.options = Objects.requireNonNull(options, "options");
            return this;
        }

        /**
         * Decides claim deadlines and retry times; use the store's clock. Defaults to
         * {@link dev.leasebox.lease.MonotonicClock#system()}, which wall-clock steps do not move.
         */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        public Builder listener(DrainListener listener) {
            this.listener = Objects.requireNonNull(listener, "listener");
            return this;
        }

        /** Which provider exceptions are permanent; defaults to none ({@link ErrorClassifier#allRetryable()}). */
        public Builder errorClassifier(ErrorClassifier classifier) {
            this.classifier = Objects.requireNonNull(classifier, "classifier");
            return this;
        }

        /** The retry backoff's jitter source; seed it for reproducible tests. */
        public Builder backoffRandom(RandomGenerator random) {
            this.random = Objects.requireNonNull(random, "random");
            return this;
        }

        /** @throws DrainConfigurationException in one line, naming what is missing or inconsistent and what to do */
        public OutboxDrain build() {
            if (options == null) {
                options = DrainOptions.defaults();
            }
            if (options.useClaimLeases() && claims == null) {
                throw new DrainConfigurationException(selection == null
                        ? "OutboxDrain needs a store: call builder().store(...)"
                        : "useClaimLeases=true but the store " + selection.getClass().getName() + " is not an "
                        + "OutboxClaimStore: use a claim-capable store and apply its claim-column migration, "
                        + "or set useClaimLeases=false and accept duplicate emissions across workers");
            }
            if (!options.useClaimLeases() && selection == null) {
                if (!(claims instanceof OutboxStore plain)) {
                    throw new DrainConfigurationException("useClaimLeases=false needs a store that selects entries: "
                            + "call builder().selectionOnlyStore(...)");
                }
                selection = plain;
            }
            if (provider == null) {
                throw new DrainConfigurationException("OutboxDrain needs a provider: call builder().provider(...)");
            }
            if (feed != null && !wakeUps) {
                throw new DrainConfigurationException("wakeUps(false) contradicts wakeUpsFrom(...): a drain given a wake-up "
                        + "feed expects wake-ups; drop one of the two calls");
            }
            OutboxDrain drain = new OutboxDrain(this);
            if (feed != null) {
                try {
                    drain.feed = Objects.requireNonNull(feed.apply(drain), "the wake-up feed");
                } catch (RuntimeException e) {
                    drain.renewals.shutdownNow();
                    throw e;
                }
            }
            return drain;
        }
    }
}
