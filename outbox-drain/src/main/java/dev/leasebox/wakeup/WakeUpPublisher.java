package dev.leasebox.wakeup;

import dev.leasebox.lease.WakeUpChannel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Publishes one outbox table's hints through a coordinator's {@link WakeUpChannel}, from a background
 * thread: a writer's call never waits on the coordinator, and hints given while one is being sent go out
 * together as at most one of each kind, so a busy writer costs the coordinator a message per round trip,
 * not per entry. A publish the coordinator refuses is a lost hint: logged once until publishing works
 * again, never thrown.
 */
public final class WakeUpPublisher {

    private static final Logger log = LoggerFactory.getLogger(WakeUpPublisher.class);

    /** One daemon thread for every publisher of the JVM: a message is a short round trip. */
    private static final ExecutorService SENDER = Executors.newSingleThreadExecutor(runnable -> {
        Thread t = new Thread(runnable, "leasebox-wake-up-publisher");
        t.setDaemon(true);
        return t;
    });

    private static final int COMMITTED = 1;
    private static final int PENDING = 2;

    private final WakeUpChannel channel;
    private final String topic;
    private final AtomicInteger hints = new AtomicInteger();
    private final AtomicBoolean scheduled = new AtomicBoolean();
    private volatile boolean failing;

    /** A publisher of {@code table}'s hints ({@code schema.table} or {@code table}, as the drains name it). */
    public WakeUpPublisher(WakeUpChannel channel, String table) {
        this.channel = Objects.requireNonNull(channel, "channel");
        this.topic = topic(table);
    }

    /** The topic of a table's hints: its name as configured, lower case. */
    public static String topic(String table) {
        return Objects.requireNonNull(table, "table").toLowerCase(Locale.ROOT);
    }

    /** The word a hint travels as. */
    public static String word(WakeUp hint) {
        return hint.name().toLowerCase(Locale.ROOT);
    }

    /** The hint a word names; empty for a word this version does not know. */
    public static Optional<WakeUp> hint(String word) {
        for (WakeUp hint : WakeUp.values()) {
            if (word(hint).equals(word)) {
                return Optional.of(hint);
            }
        }
        return Optional.empty();
    }

    /** Sends {@code hint} soon, with any others given before it goes out. */
    public void publish(WakeUp hint) {
        hints.getAndAccumulate(hint == WakeUp.COMMITTED ? COMMITTED : PENDING, (a, b) -> a | b);
        if (scheduled.compareAndSet(false, true)) {
            SENDER.execute(this::send);
        }
    }

    private void send() {
        scheduled.set(false); // before taking the hints: one given from now on schedules another send
        int pending = hints.getAndSet(0);
        try {
            if ((pending & COMMITTED) != 0) {
                channel.publish(topic, word(WakeUp.COMMITTED));
            }
            if ((pending & PENDING) != 0) {
                channel.publish(topic, word(WakeUp.COMMIT_PENDING));
            }
            if (failing) {
                failing = false;
                log.info("Wake-ups for outbox table {} are published again", topic);
            }
        } catch (RuntimeException e) {
            if (!failing) {
                failing = true;
                log.warn("Cannot publish a wake-up for outbox table {} ({}): drains find its entries at their next "
                        + "poll instead; logged once until publishing works again", topic, e.toString());
            }
        }
    }
}
