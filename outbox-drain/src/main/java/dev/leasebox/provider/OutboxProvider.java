package dev.leasebox.provider;

/**
 * Delivers one outbox entry to the outside world (a broker, an HTTP endpoint, a log).
 *
 * <p>What the drain guarantees to a provider: {@link #emit} is called only for an entry the drain
 * holds a claim on (on the default claim path), with the claim's fence in {@link Envelope#fence()};
 * delivery is <em>at-least-once</em>, never exactly-once. The same entry reaches a provider more
 * than once when a claim expired or was lost after the emission began (a stalled worker, a lost
 * coordinator session, a store that could not be told the outcome), or on the non-claiming path
 * whenever two workers select it together. Every emission of one entry carries the same
 * {@link Envelope#idempotencyKey()}: a provider that forwards it (a message id, an
 * {@code Idempotency-Key} header) lets the receiver collapse duplicates.
 *
 * <p>Return an outcome for what happened; a thrown exception counts as a retryable error unless the
 * drain's {@link ErrorClassifier} says it is permanent. Implementations may be called from several
 * drain threads at once.
 */
@FunctionalInterface
public interface OutboxProvider {

    /**
     * Emits {@code envelope}. Should not block longer than the drain's lease duration: past its
     * claim's local deadline the drain abandons the result and the entry will be emitted again.
     */
    ProviderOutcome emit(Envelope envelope) throws Exception;
}
