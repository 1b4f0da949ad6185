package dev.leasebox.lease.contract;

import dev.leasebox.lease.LeaseManager;
import dev.leasebox.lease.WakeUpChannel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The {@link WakeUpChannel} contract a backend's channel passes: extend this class in the backend's test and
 * implement {@link #newManager()} (a new, independent client of the backend, as another process would have;
 * the kit closes every manager it made). Hints are best effort, so the kit asserts only what a healthy
 * coordinator always does: a subscription says when it listens, and then hears hints of its topic published
 * by another client, not those of other topics. Topics carry a random per-test part.
 */
public abstract class WakeUpChannelContract {

    /** How long the kit waits for a hint or a subscription. */
    protected static final Duration BOUND = Duration.ofSeconds(20);

    private final List<AutoCloseable> opened = new ArrayList<>();
    private final String prefix = "wake-contract-" + UUID.randomUUID().toString().substring(0, 8) + "-";

    /** A new client of the backend under test that offers a {@link WakeUpChannel}. */
    protected abstract LeaseManager newManager();

    @AfterEach
    void closeEverything() throws Exception {
        for (int i = opened.size() - 1; i >= 0; i--) {
            opened.get(i).close();
        }
    }

    @Test
    void aSubscriptionSaysWhenItListensAndHearsHintsPublishedByAnotherClient() {
        WakeUpChannel publisher = channel();
        Heard heard = subscribe(channel(), topic("orders"));

        publisher.publish(topic("orders"), "committed");

        await().atMost(BOUND).until(() -> heard.hints.contains("committed"));
    }

    @Test
    void everySubscriptionOfATopicHearsItsHintsAndNoneOfAnotherTopic() {
        WakeUpChannel publisher = channel();
        Heard first = subscribe(channel(), topic("a"));
        Heard second = subscribe(channel(), topic("a"));
        Heard other = subscribe(channel(), topic("b"));

        publisher.publish(topic("a"), "commit_pending");

        await().atMost(BOUND).until(() -> first.hints.contains("commit_pending") && second.hints.contains("commit_pending"));
        publisher.publish(topic("b"), "committed");
        await().atMost(BOUND).until(() -> other.hints.contains("committed"));
        assertThat(other.hints).as("hints heard on topic b").doesNotContain("commit_pending");
    }

    @Test
    void aClosedSubscriptionHearsNothingMore() {
        WakeUpChannel publisher = channel();
        Heard closed = subscribe(channel(), topic("closed"));
        Heard open = subscribe(channel(), topic("closed"));
        closed.subscription.close();
        closed.subscription.close();

        publisher.publish(topic("closed"), "committed");

        await().atMost(BOUND).until(() -> open.hints.contains("committed"));
        assertThat(closed.hints).isEmpty();
    }

    /** A channel of a new manager. */
    protected WakeUpChannel channel() {
        LeaseManager manager = newManager();
        opened.add(manager);
        return manager.as(WakeUpChannel.class).orElseThrow(() ->
                new AssertionError(manager.describe() + " offers no WakeUpChannel"));
    }

    /** A topic of this test. */
    protected String topic(String name) {
        return prefix + name;
    }

    /** Subscribes and waits until the subscription listens. */
    protected Heard subscribe(WakeUpChannel channel, String topic) {
        Heard heard = new Heard();
        heard.subscription = channel.subscribe(topic, heard);
        opened.add(heard.subscription);
        await().atMost(BOUND).until(() -> heard.subscribed.get() > 0);
        return heard;
    }

    /** What one subscription heard: a listener for any test that listens on a channel. */
    public static final class Heard implements WakeUpChannel.Listener {
        public final List<String> hints = new CopyOnWriteArrayList<>();
        public final AtomicInteger subscribed = new AtomicInteger();
        public WakeUpChannel.Subscription subscription;

        @Override
        public void hint(String hint) {
            hints.add(hint);
        }

        @Override
        public void subscribed() {
            subscribed.incrementAndGet();
        }
    }
}
