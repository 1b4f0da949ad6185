package dev.leasebox.kafka;

import dev.leasebox.provider.ProviderOutcome;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.RecordBatchTooLargeException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * What a failed send means for the entry.
 *
 * <ul>
 *   <li><b>Permanent</b> (the entry is dead-lettered at once; sending it again cannot help): any
 *       {@link AuthorizationException} (the producer may not write the topic), {@link RecordTooLargeException}
 *       and {@link RecordBatchTooLargeException} (larger than {@code max.request.size} or the topic's
 *       {@code max.message.bytes}), {@link InvalidTopicException}, and a topic that does not exist: the
 *       producer reports that only as a timeout (waiting for metadata, or a batch expiring), so a timeout is
 *       followed by a look at the cluster, and only its answer that the topic is unknown makes it permanent.
 *       When the cluster does not answer (an outage), the timeout stays retryable and the next look waits a
 *       timeout's length.</li>
 *   <li><b>Retryable</b> (backoff, then again; dead-lettered after the drain's {@code maxAttempts}): every
 *       {@link RetriableException} (timeouts, leader changes, not enough replicas, a broker gone) and every
 *       other failure, since an error the client does not call fatal may pass.</li>
 * </ul>
 */
final class KafkaOutcomes implements AutoCloseable {

    private final String topic;
    private final Duration timeout;
    private final Supplier<Admin> admins;
    private Admin admin;
    private long lastUnanswered = System.nanoTime() - Long.MAX_VALUE / 2;

    KafkaOutcomes(String topic, Duration timeout, Supplier<Admin> admins) {
        this.topic = topic;
        this.timeout = timeout;
        this.admins = admins;
    }

    ProviderOutcome of(Throwable failure) {
        String message = "kafka: " + failure.getClass().getSimpleName() + ": " + rootMessage(failure);
        if (failure instanceof AuthorizationException || failure instanceof RecordTooLargeException
                || failure instanceof RecordBatchTooLargeException || failure instanceof InvalidTopicException) {
            return ProviderOutcome.permanent(message);
        }
        if ((failure instanceof UnknownTopicOrPartitionException
                || failure instanceof org.apache.kafka.common.errors.TimeoutException) && topicMissingNow()) {
            return ProviderOutcome.permanent("kafka: topic " + topic + " does not exist and the brokers do not create it");
        }
        return ProviderOutcome.retryable(message);
    }

    /**
     * Asks the cluster after a timeout, unless it did not answer within the last timeout: in a broker outage
     * every send times out, and one unanswered look per timeout is enough.
     */
    private synchronized boolean topicMissingNow() {
        if (System.nanoTime() - lastUnanswered < timeout.toNanos()) {
            return false;
        }
        Optional<Boolean> missing = topicMissing();
        if (missing.isEmpty()) {
            lastUnanswered = System.nanoTime();
        }
        return missing.orElse(false);
    }

    /**
     * Whether the cluster says the topic does not exist; empty when no broker answered in time (then nothing
     * is known: a broker outage must not turn into dead letters).
     */
    synchronized Optional<Boolean> topicMissing() {
        try {
            if (admin == null) {
                admin = admins.get();
            }
            admin.describeTopics(List.of(topic)).allTopicNames().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            return Optional.of(false);
        } catch (ExecutionException e) {
            return e.getCause() instanceof UnknownTopicOrPartitionException ? Optional.of(true) : Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        } catch (java.util.concurrent.TimeoutException | RuntimeException e) {
            return Optional.empty();
        }
    }

    static String rootMessage(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.getMessage() == null ? root.toString() : root.getMessage();
    }

    @Override
    public synchronized void close() {
        if (admin != null) {
            admin.close(timeout);
        }
    }
}
