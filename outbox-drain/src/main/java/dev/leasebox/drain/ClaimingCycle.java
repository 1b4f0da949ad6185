package dev.leasebox.drain;

import dev.leasebox.outbox.ClaimCompletion;
import dev.leasebox.outbox.ClaimLossListener;
import dev.leasebox.outbox.ClaimRequest;
import dev.leasebox.outbox.ClaimSelection;
import dev.leasebox.outbox.Completion;
import dev.leasebox.outbox.CompletionOutcome;
import dev.leasebox.outbox.OutboxClaim;
import dev.leasebox.outbox.OutboxClaimStore;
import dev.leasebox.provider.Envelope;
import dev.leasebox.provider.ProviderOutcome;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;

/**
 * The claim path: claim a batch, emit each claim while renewing them, write every result in one
 * {@code completeAll}.
 *
 * <p>Guarantees: an entry is emitted only under a claim this cycle obtained and still considers held
 * (not reported lost, not refused by a renewal, local deadline not passed). A claim lost at any point
 * is abandoned: its result is not written, not even as a release. Every write is token-checked by
 * the store; a refusal is counted and reported, never retried and never thrown. While the store
 * reports claims at risk, no emission starts: the batch's unemitted claims are handed back and no new
 * batch is claimed until the store reports them safe again. A loss the store reports while the claim
 * call that returns the claim is still running, or before the batch is set up, reaches the batch too:
 * losses reported during a claim call are kept for it and applied to its batch once the batch is
 * watched, so no emission or completion decision misses one.
 */
final class ClaimingCycle implements DrainCycle {

    private static final Logger log = LoggerFactory.getLogger(ClaimingCycle.class);

    private final OutboxClaimStore store;
    private final DrainOptions options;
    private final Clock clock;
    private final Emitter emitter;
    private final CompletionPolicy policy;
    private final DrainListener listener;
    private final ScheduledExecutorService renewals;
    private final BooleanSupplier stopRequested;
    private final BooleanSupplier halted;
    private final Set<ClaimedBatch> active = ConcurrentHashMap.newKeySet();
    /** Losses reported while claim calls run, one record per call, kept until the call's batch is active. */
    private final Set<LossesWhileClaiming> claiming = ConcurrentHashMap.newKeySet();
    private final AtomicReference<Optional<String>> atRisk = new AtomicReference<>(Optional.empty());

    ClaimingCycle(OutboxClaimStore store, DrainOptions options, Clock clock, Emitter emitter, CompletionPolicy policy,
                  DrainListener listener, ScheduledExecutorService renewals, BooleanSupplier stopRequested,
                  BooleanSupplier halted) {
        this.store = store;
        this.options = options;
        this.clock = clock;
        this.emitter = emitter;
        this.policy = policy;
        this.listener = listener;
        this.renewals = renewals;
        this.stopRequested = stopRequested;
        this.halted = halted;
        store.addClaimLossListener(new LossWatcher());
    }

    @Override
    public CycleResult run() {
        if (stopRequested.getAsBoolean() || atRisk.get().isPresent()) {
            return CycleResult.EMPTY;
        }
        LossesWhileClaiming lossesWhileClaiming = new LossesWhileClaiming();
        claiming.add(lossesWhileClaiming);
        List<OutboxClaim> claims;
        ClaimedBatch batch;
        try {
            claims = store.claim(ClaimSelection.ELIGIBLE,
                    new ClaimRequest(options.owner(), options.batchSize(), options.leaseDuration()));
            if (claims.isEmpty()) {
                return CycleResult.EMPTY;
            }
            batch = new ClaimedBatch(claims, options.claimSafetyMargin(), listener);
            active.add(batch); // before the record is dropped: a loss reported in between finds one or the other
        } finally {
            claiming.remove(lossesWhileClaiming);
        }
        Optional<ScheduledFuture<?>> renewal = Optional.empty();
        try {
            listener.batchClaimed(claims.size());
            listener.claimed(claims);
            lossesWhileClaiming.applyTo(batch);
            renewal = scheduleRenewal(batch);
            CycleTally tally = new CycleTally(claims.size());
            Map<Long, ProviderOutcome> emitted = new LinkedHashMap<>();
            Map<Long, String> toRelease = new LinkedHashMap<>();
            Map<Long, String> abandoned = new LinkedHashMap<>();
            emitWhileHeld(batch, emitted, toRelease, abandoned);
            batch.finish();
            renewal.ifPresent(r -> r.cancel(false));
            List<ClaimCompletion> completions = completionsOf(batch, emitted, toRelease, abandoned);
            reportAbandoned(abandoned, tally);
            write(completions, tally);
            return tally.result();
        } finally {
            batch.finish();
            renewal.ifPresent(r -> r.cancel(false));
            active.remove(batch);
        }
    }

    private void emitWhileHeld(ClaimedBatch batch, Map<Long, ProviderOutcome> emitted, Map<Long, String> toRelease,
                               Map<Long, String> abandoned) {
        for (Long id : batch.entryIds()) {
            if (stopRequested.getAsBoolean()) {
                toRelease.put(id, "the drain is shutting down");
                continue;
            }
            Optional<String> risk = atRisk.get();
            if (risk.isPresent()) {
                toRelease.put(id, "claims at risk: " + risk.get());
                continue;
            }
            Optional<String> loss = batch.lossOf(id, clock.instant());
            if (loss.isPresent()) {
                abandoned.put(id, "claim lost before emission: " + loss.get());
                continue;
            }
            emitted.put(id, emitter.emit(Envelope.forClaim(batch.current(id))));
        }
    }

    /** Only claims still held after the emissions get a write; the losses were decided by now. */
    private List<ClaimCompletion> completionsOf(ClaimedBatch batch, Map<Long, ProviderOutcome> emitted,
                                                Map<Long, String> toRelease, Map<Long, String> abandoned) {
        Instant now = clock.instant();
        List<ClaimCompletion> completions = new ArrayList<>(emitted.size() + toRelease.size());
        emitted.forEach((id, outcome) -> {
            Optional<String> loss = batch.lossOf(id, now);
            if (loss.isPresent()) {
                abandoned.put(id, "emitted, but the claim was lost: " + loss.get());
            } else {
                OutboxClaim claim = batch.current(id);
                completions.add(new ClaimCompletion(claim, policy.completionFor(claim.entry(), outcome, now)));
            }
        });
        toRelease.forEach((id, reason) -> {
            Optional<String> loss = batch.lossOf(id, now);
            if (loss.isPresent()) {
                abandoned.put(id, "not emitted, and the claim was lost: " + loss.get());
            } else {
                completions.add(new ClaimCompletion(batch.current(id), new Completion.Released(reason)));
            }
        });
        return completions;
    }

    private void reportAbandoned(Map<Long, String> abandoned, CycleTally tally) {
        if (abandoned.isEmpty()) {
            return;
        }
        tally.abandoned(abandoned.size());
        byReason(abandoned).forEach((reason, ids) -> {
            log.warn("Owner {} abandoned the claims on entries {}: {}. Nothing was written for them; they are reclaimed "
                    + "after expiry and may be emitted again", options.owner(), ids, reason);
            listener.claimsAbandoned(ids, reason);
        });
    }

    private void write(List<ClaimCompletion> completions, CycleTally tally) {
        if (completions.isEmpty() || halted.getAsBoolean()) {
            return; // a halted drain behaves as a crashed one: it writes nothing more
        }
        List<CompletionOutcome> outcomes;
        try {
            outcomes = store.completeAll(completions);
        } catch (RuntimeException e) {
            Set<Long> ids = new LinkedHashSet<>();
            completions.forEach(c -> ids.add(c.claim().entryId()));
            log.warn("Owner {} could not write the results of entries {} ({}); they are reclaimed after expiry and "
                    + "may be emitted again", options.owner(), ids, e.toString());
            tally.abandoned(ids.size());
            listener.claimsAbandoned(Set.copyOf(ids), "completeAll failed: " + e);
            return;
        }
        if (outcomes.size() != completions.size()) {
            throw new IllegalStateException(store.getClass().getName() + ".completeAll returned " + outcomes.size()
                    + " outcomes for " + completions.size() + " completions; the store breaks the OutboxClaimStore contract");
        }
        Map<Long, String> released = new LinkedHashMap<>();
        for (int i = 0; i < completions.size(); i++) {
            ClaimCompletion c = completions.get(i);
            CompletionOutcome outcome = outcomes.get(i);
            long id = c.claim().entryId();
            if (outcome.isCompleted()) {
                tally.written(c.completion());
                listener.completed(id, c.completion(), outcome);
                CompletionPolicy.deadLetterReason(c.completion()).ifPresent(r -> listener.deadLettered(id, r));
                if (c.completion() instanceof Completion.Released r) {
                    released.put(id, r.reason());
                }
            } else {
                tally.stale();
                log.warn("The store refused owner {}'s {} of entry {} under token {}: {}. Nothing was written; the "
                        + "claim had lapsed, so the entry may have been emitted twice", options.owner(),
                        c.completion().getClass().getSimpleName(), id, c.claim().token(), outcome.getClass().getSimpleName());
                listener.completionRefused(id, c.completion(), outcome);
            }
        }
        byReason(released).forEach((reason, ids) -> listener.claimsReleased(ids, reason));
    }

    private static Map<String, Set<Long>> byReason(Map<Long, String> reasons) {
        Map<String, Set<Long>> grouped = new LinkedHashMap<>();
        reasons.forEach((id, reason) -> grouped.computeIfAbsent(reason, r -> new LinkedHashSet<>()).add(id));
        grouped.replaceAll((reason, ids) -> Set.copyOf(ids));
        return grouped;
    }

    private Optional<ScheduledFuture<?>> scheduleRenewal(ClaimedBatch batch) {
        long every = options.renewalInterval().toNanos();
        try {
            return Optional.of(renewals.scheduleWithFixedDelay(
                    () -> batch.renew(claims -> store.renewClaims(claims, options.leaseDuration())),
                    every, every, TimeUnit.NANOSECONDS));
        } catch (RejectedExecutionException e) {
            // Only after a shutdown that timed out: the batch then relies on its local deadlines.
            log.warn("Owner {}: claim renewal is shut down; this batch's claims lapse at their local deadline",
                    options.owner());
            return Optional.empty();
        }
    }

    /** The losses reported while one claim call ran, by entry id, for its batch once it is active. */
    private static final class LossesWhileClaiming {
        private final Map<Long, String> causes = new ConcurrentHashMap<>();

        void record(Set<Long> entryIds, String cause) {
            entryIds.forEach(id -> causes.putIfAbsent(id, cause));
        }

        void applyTo(ClaimedBatch batch) {
            causes.forEach((id, cause) -> batch.markLost(Set.of(id), cause));
        }
    }

    /**
     * Receives the store's loss reports; must not block (it runs on the store's or coordinator's thread).
     * A loss is recorded for the claim calls in progress before the active batches are marked; a claim call
     * adds its batch to the active ones before it reads its record: one of the two sees the other.
     */
    private final class LossWatcher implements ClaimLossListener {
        @Override
        public void claimsLost(Set<Long> entryIds, String cause) {
            String why = "lease lost: " + cause;
            for (LossesWhileClaiming pending : claiming) {
                pending.record(entryIds, why);
            }
            for (ClaimedBatch batch : active) {
                batch.markLost(entryIds, why);
            }
        }

        @Override
        public void claimsTakenOver(Set<Long> entryIds) {
            log.info("Owner {}: took over {} {} whose earlier claim expired unfinished (its holder died, stalled or "
                    + "lost its lease; the receiver may see them twice)", options.owner(), entryIds.size(),
                    entryIds.size() == 1 ? "entry" : "entries");
            listener.claimsTakenOver(entryIds);
        }

        @Override
        public void claimsAtRisk(String cause) {
            atRisk.set(Optional.of(cause));
            log.warn("Owner {}: claims at risk ({}); no new emissions until they are safe again", options.owner(), cause);
        }

        @Override
        public void claimsSafeAgain() {
            atRisk.set(Optional.empty());
            log.info("Owner {}: claims safe again; resuming emissions", options.owner());
        }
    }
}
