package dev.leasebox.provider;


import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * Prints each envelope as one line and reports it delivered: for trying Leasebox out and for
 * watching what a worker emits. Never fails.
 */
public final class LogProvider implements OutboxProvider {

    private static final int PAYLOAD_PREVIEW = 120;

    private final PrintStream out;

    public LogProvider(PrintStream out) {
        this.out = Objects.requireNonNull(out, "out");
    }

    @Override
    public ProviderOutcome emit(Envelope envelope) {
        String payload = new String(envelope.payload(), StandardCharsets.UTF_8);
        if (payload.length() > PAYLOAD_PREVIEW) {
            payload = payload.substring(0, PAYLOAD_PREVIEW) + "…";
        }
        out.println("emit entry=" + envelope.entryId() + " key=" + envelope.idempotencyKey()
                + " fence=" + (envelope.fence().isPresent() ? envelope.fence().getAsLong() : "none")
                + " attempt=" + envelope.attempt() + " owner=" + envelope.owner()
                + " type=" + envelope.type()
                + envelope.partitionKey().map(k -> " partition=" + k).orElse("")
                + " payload=" + payload.replace('\n', ' '));
        return ProviderOutcome.delivered();
    }
}
