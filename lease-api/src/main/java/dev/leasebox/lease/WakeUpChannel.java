package dev.leasebox.lease;

/**
 * Hints between the processes that share a coordinator: "entries may be waiting in this outbox table".
 * A {@link LeaseManager} may offer one through {@link LeaseManager#as(Class)}; writers publish a hint after
 * they commit, drains subscribe and look at once instead of at their next poll. It carries latency, never
 * safety: a drain still claims every entry through its store, and still polls.
 *
 * <h2>Contract</h2>
 * <ul>
 *   <li><b>Best effort.</b> {@link #publish} sends a hint to every subscription of the topic, in every
 *       process that shares the coordinator and the manager's namespace, this one included. A hint may be
 *       lost (a connection lost, a subscriber reconnecting), delayed, or coalesced with others of its topic
 *       (a subscriber may see only the latest of several sent close together). Whatever a hint announces
 *       must also be found without it.</li>
 *   <li><b>Gaps are reported.</b> A subscription's {@link Listener#subscribed()} is called each time it
 *       starts listening: once at first, and again after every reconnection, since hints sent while it
 *       was not listening are lost. A subscriber looks once then.</li>
 *   <li><b>Listeners are called on the channel's thread</b>; they must return quickly and not throw.</li>
 *   <li>{@link #publish} may throw {@link LeaseManagerException} when the coordinator cannot be reached; a
 *       caller counts that hint as lost. Topics are scoped by the manager's namespace.</li>
 * </ul>
 */
public interface WakeUpChannel {

    /** Sends {@code hint} (a short word) to every subscription of {@code topic}. */
    void publish(String topic, String hint);

    /** Delivers the hints of {@code topic} to {@code listener} until the subscription is closed. */
    Subscription subscribe(String topic, Listener listener);

    /** Told of hints and of every (re)start of its subscription. */
    interface Listener {

        /** A hint published on the topic. */
        void hint(String hint);

        /** The subscription (re)started listening: hints sent before now may have been missed. */
        void subscribed();
    }

    /** A subscription; closing it twice is harmless. */
    interface Subscription extends AutoCloseable {
        @Override
        void close();
    }
}
