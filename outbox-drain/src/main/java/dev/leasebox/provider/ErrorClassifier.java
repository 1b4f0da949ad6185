package dev.leasebox.provider;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Decides whether an exception thrown by an {@link OutboxProvider} is permanent (the entry is
 * dead-lettered at once) or retryable (retried with backoff until {@code maxAttempts}).
 *
 * <p>The default, {@link #allRetryable()}, treats every exception as retryable: a misclassified
 * transient error would otherwise lose a message to the dead-letter state for good.
 */
@FunctionalInterface
public interface ErrorClassifier {

    /** True when retrying {@code error} cannot help. Must not throw. */
    boolean isPermanent(Exception error);

    /** Every exception is retryable: the default. */
    static ErrorClassifier allRetryable() {
        return error -> false;
    }

    /** Exceptions that are instances of one of {@code types} are permanent; all others retryable. */
    @SafeVarargs
    static ErrorClassifier permanentFor(Class<? extends Exception>... types) {
        List<Class<? extends Exception>> permanent = new ArrayList<>(types.length);
        for (Class<? extends Exception> type : types) {
            permanent.add(Objects.requireNonNull(type, "types must not contain null"));
        }
        List<Class<? extends Exception>> frozen = List.copyOf(permanent);
        return error -> frozen.stream().anyMatch(t -> t.isInstance(error));
    }
}
