package dev.leasebox.dist;

import dev.leasebox.outbox.CandidateQuery;
import dev.leasebox.outbox.ClaimCompletion;
import dev.leasebox.outbox.ClaimGrant;
import dev.leasebox.outbox.ClaimRecording;
import dev.leasebox.outbox.ClaimSelection;
import dev.leasebox.outbox.Completion;
import dev.leasebox.outbox.CompletionOutcome;
import dev.leasebox.outbox.FencedOutboxStore;
import dev.leasebox.outbox.OutboxClaim;
import dev.leasebox.outbox.OutboxEntry;
import dev.leasebox.outbox.OutboxMessage;

import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * What a table store said to every claim and completion made through it, in the order the calls
 * returned: the grants it recorded as claims, those it refused and why, and the completions it wrote
 * or refused. {@link #recording} wraps a worker's store ({@code LeaseboxToolBuilder#decorateFencedStore});
 * several workers may share one ledger.
 */
final class FenceLedger {

    /** One answer of the store: a claim recorded or refused, or a completion written or refused. */
    sealed interface Event permits Recorded, Refused, Completed, CompletionRefused {
        String worker();

        long entryId();
    }

    /** {@code token} became the row's claim token (and so its fence high-water mark). */
    record Recorded(String worker, long entryId, long token) implements Event {
    }

    /** The grant was refused, with the row's high-water mark as the store read it. */
    record Refused(String worker, long entryId, long token, ClaimRecording.Reason reason, long fenceHighWater) implements Event {
    }

    /** The completion was written under the claim's {@code token}. */
    record Completed(String worker, long entryId, long token, Completion completion) implements Event {
    }

    /** The completion under {@code token} was refused; nothing was written. */
    record CompletionRefused(String worker, long entryId, long token, CompletionOutcome outcome) implements Event {
    }

    private final ConcurrentLinkedQueue<Event> events = new ConcurrentLinkedQueue<>();

    /** Every answer so far, in order. */
    List<Event> events() {
        return List.copyOf(events);
    }

    /** {@code store} with each of its claim and completion answers written here, as {@code worker}'s. */
    FencedOutboxStore recording(String worker, FencedOutboxStore store) {
        return new Recording(worker, store);
    }

    private final class Recording implements FencedOutboxStore {
        private final String worker;
        private final FencedOutboxStore delegate;

        Recording(String worker, FencedOutboxStore delegate) {
            this.worker = worker;
            this.delegate = delegate;
        }

        @Override
        public ClaimRecording recordClaims(ClaimSelection selection, List<ClaimGrant> grants) {
            ClaimRecording recording = delegate.recordClaims(selection, grants);
            recording.recorded().forEach(claim -> events.add(new Recorded(worker, claim.entryId(), claim.token())));
            recording.refused().forEach(refusal -> events.add(new Refused(worker, refusal.grant().entryId(),
                    refusal.grant().token(), refusal.reason(), refusal.fenceHighWater())));
            return recording;
        }

        @Override
        public List<CompletionOutcome> completeAll(List<ClaimCompletion> completions) {
            List<CompletionOutcome> outcomes = delegate.completeAll(completions);
            for (int i = 0; i < outcomes.size(); i++) {
                note(completions.get(i), outcomes.get(i));
            }
            return outcomes;
        }

        @Override
        public CompletionOutcome complete(OutboxClaim claim, Completion completion) {
            CompletionOutcome outcome = delegate.complete(claim, completion);
            note(new ClaimCompletion(claim, completion), outcome);
            return outcome;
        }

        @Override
        public List<CompletionOutcome> completeAllFenced(List<ClaimCompletion> completions) {
            List<CompletionOutcome> outcomes = delegate.completeAllFenced(completions);
            for (int i = 0; i < outcomes.size(); i++) {
                note(completions.get(i), outcomes.get(i));
            }
            return outcomes;
        }

        private void note(ClaimCompletion completion, CompletionOutcome outcome) {
            OutboxClaim claim = completion.claim();
            events.add(outcome.isCompleted()
                    ? new Completed(worker, claim.entryId(), claim.token(), completion.completion())
                    : new CompletionRefused(worker, claim.entryId(), claim.token(), outcome));
        }

        @Override
        public List<Long> findClaimCandidateIds(CandidateQuery query) {
            return delegate.findClaimCandidateIds(query);
        }

        @Override
        public List<OutboxEntry> findEligible(ClaimSelection selection, Collection<Long> ids) {
            return delegate.findEligible(selection, ids);
        }

        @Override
        public List<OutboxClaim> extendClaims(List<OutboxClaim> claims, Instant expiresAt) {
            return delegate.extendClaims(claims, expiresAt);
        }

        @Override
        public long highestFenceHighWater() {
            return delegate.highestFenceHighWater();
        }

        @Override
        public OutboxEntry enqueue(OutboxMessage message) {
            return delegate.enqueue(message);
        }

        @Override
        public List<OutboxEntry> findPending(int limit) {
            return delegate.findPending(limit);
        }

        @Override
        public List<OutboxEntry> findRetryReady(int limit) {
            return delegate.findRetryReady(limit);
        }

        @Override
        public OutboxEntry save(OutboxEntry entry) {
            return delegate.save(entry);
        }

        @Override
        public Optional<OutboxEntry> find(long id) {
            return delegate.find(id);
        }
    }
}
