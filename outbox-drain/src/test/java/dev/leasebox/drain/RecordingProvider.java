package dev.leasebox.drain;

import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CopyOnWriteArrayList;
import dev.leasebox.provider.Envelope;
import dev.leasebox.provider.OutboxProvider;
import dev.leasebox.provider.ProviderOutcome;

/** Records every emission (entry, fence, owner, attempt, time) before doing what {@code behaviour} does. */
final class RecordingProvider implements OutboxProvider {

    record Emission(long entryId, OptionalLong fence, String owner, int attempt, Instant at, String idempotencyKey) {
    }

    private final Clock clock;
    private final OutboxProvider behaviour;
    final List<Emission> emissions = new CopyOnWriteArrayList<>();
    final List<Envelope> envelopes = new CopyOnWriteArrayList<>();

    RecordingProvider(Clock clock, OutboxProvider behaviour) {
        this.clock = clock;
        this.behaviour = behaviour;
    }

    static RecordingProvider delivering(Clock clock) {
        return new RecordingProvider(clock, envelope -> ProviderOutcome.delivered("ok"));
    }

    @Override
    public ProviderOutcome emit(Envelope envelope) throws Exception {
        emissions.add(new Emission(envelope.entryId(), envelope.fence(), envelope.owner(), envelope.attempt(),
                clock.instant(), envelope.idempotencyKey()));
        envelopes.add(envelope);
        return behaviour.emit(envelope);
    }

    long emissionsOf(long entryId) {
        return emissions.stream().filter(e -> e.entryId() == entryId).count();
    }
}
