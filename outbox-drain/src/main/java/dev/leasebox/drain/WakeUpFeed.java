package dev.leasebox.drain;

/**
 * What tells a drain that entries may be waiting ({@link OutboxDrain#wakeUp}), from the drain's start until it
 * stops: set with {@link OutboxDrain.Builder#wakeUpsFrom}, started by {@link OutboxDrain#start()} and closed by
 * {@link OutboxDrain#close()}, so that a drain hears its wake-ups however it is started.
 */
public interface WakeUpFeed {

    /** Starts listening; called once, by {@link OutboxDrain#start()}, after the drain's loops started. */
    void start();

    /** Stops listening; called when the drain closes or halts, also when it never started. Must not throw. */
    void close();
}
