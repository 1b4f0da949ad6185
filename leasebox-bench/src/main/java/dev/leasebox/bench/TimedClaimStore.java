package dev.leasebox.bench;

import dev.leasebox.outbox.ClaimCompletion;
import dev.leasebox.outbox.ClaimRequest;
import dev.leasebox.outbox.ClaimSelection;
import dev.leasebox.outbox.CompletionOutcome;
import dev.leasebox.outbox.ForwardingOutboxClaimStore;
import dev.leasebox.outbox.OutboxClaim;
import dev.leasebox.outbox.OutboxClaimStore;

import java.util.List;
import java.util.Objects;

/**
 * An {@link OutboxClaimStore} that times every {@link #claim} call of the store it wraps — for the
 * {@code database} backend one SQL statement, for an external backend the whole claim path
 * (candidates, lease acquisition, claim recording) — and changes nothing else. The same calls, and
 * the {@code database} backend's completions, also go to a {@link PhaseTimer}.
 */
final class TimedClaimStore extends ForwardingOutboxClaimStore {

    private final LatencyRecorder latencies;
    private final PhaseTimer phases;

    TimedClaimStore(OutboxClaimStore delegate, LatencyRecorder latencies, PhaseTimer phases) {
        super(delegate);
        this.latencies = Objects.requireNonNull(latencies, "latencies");
        this.phases = Objects.requireNonNull(phases, "phases");
    }

    @Override
    public List<OutboxClaim> claim(ClaimSelection selection, ClaimRequest request) {
        long started = System.nanoTime();
        List<OutboxClaim> claims = delegate.claim(selection, request);
        long took = System.nanoTime() - started;
        latencies.record(took);
        phases.record("claim", took);
        return claims;
    }

    /** Timed as "complete" for the {@code database} backend; for leased stores the inner phases are timed too. */
    @Override
    public List<CompletionOutcome> completeAll(List<ClaimCompletion> completions) {
        long started = System.nanoTime();
        try {
            return delegate.completeAll(completions);
        } finally {
            if (!(delegate instanceof dev.leasebox.claim.leased.LeasedOutboxClaimStore)) {
                phases.record("complete", System.nanoTime() - started);
            }
        }
    }
}
