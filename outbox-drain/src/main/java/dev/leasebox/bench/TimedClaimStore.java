package dev.leasebox.bench;

import dev.leasebox.outbox.ClaimRequest;
import dev.leasebox.outbox.ClaimSelection;
import dev.leasebox.outbox.ForwardingOutboxClaimStore;
import dev.leasebox.outbox.OutboxClaim;
import dev.leasebox.outbox.OutboxClaimStore;

import java.util.List;
import java.util.Objects;

/**
 * An {@link OutboxClaimStore} that times every {@link #claim} call of the store it wraps — for the
 * {@code database} backend one SQL statement, for an external backend the whole claim path
 * (candidates, lease acquisition, claim recording) — and changes nothing else.
 */
final class TimedClaimStore extends ForwardingOutboxClaimStore {

    private final LatencyRecorder latencies;

    TimedClaimStore(OutboxClaimStore delegate, LatencyRecorder latencies) {
        super(delegate);
        this.latencies = Objects.requireNonNull(latencies, "latencies");
    }

    @Override
    public List<OutboxClaim> claim(ClaimSelection selection, ClaimRequest request) {
        long started = System.nanoTime();
        List<OutboxClaim> claims = delegate.claim(selection, request);
        latencies.record(System.nanoTime() - started);
        return claims;
    }
}
