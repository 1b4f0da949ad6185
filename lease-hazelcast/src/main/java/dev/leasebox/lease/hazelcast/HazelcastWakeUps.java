package dev.leasebox.lease.hazelcast;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.LifecycleEvent;
import com.hazelcast.topic.ITopic;
import dev.leasebox.lease.WakeUpChannel;

import java.util.UUID;

/**
 * Wake-up hints on a Hazelcast {@link ITopic} per topic, {@code <namespace>/%wake-up%<topic>} (an AP structure:
 * no CP session involved). A topic keeps no message for a listener that is not registered: a client that lost
 * its cluster misses the hints sent meanwhile, so each (re)connection of a client tells the listener
 * {@link WakeUpChannel.Listener#subscribed()}, as does the registration itself. Messages are delivered on
 * Hazelcast's event threads.
 */
final class HazelcastWakeUps implements WakeUpChannel.Subscription {

    private final HazelcastInstance instance;
    private final ITopic<String> topic;
    private final UUID messages;
    private final UUID lifecycle;
    private volatile boolean closed;

    private HazelcastWakeUps(HazelcastInstance instance, ITopic<String> topic, WakeUpChannel.Listener listener) {
        this.instance = instance;
        this.topic = topic;
        this.messages = topic.addMessageListener(message -> listener.hint(message.getMessageObject()));
        this.lifecycle = instance.getLifecycleService().addLifecycleListener(event -> {
            if (!closed && event.getState() == LifecycleEvent.LifecycleState.CLIENT_CONNECTED) {
                listener.subscribed();
            }
        });
    }

    static String topicName(String namePrefix, String topic) {
        return namePrefix + "%wake-up%" + topic;
    }

    static void publish(HazelcastInstance instance, String name, String hint) {
        instance.<String>getTopic(name).publish(hint);
    }

    static HazelcastWakeUps subscribe(HazelcastInstance instance, String name, WakeUpChannel.Listener listener) {
        HazelcastWakeUps subscription = new HazelcastWakeUps(instance, instance.getTopic(name), listener);
        listener.subscribed();
        return subscription;
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            topic.removeMessageListener(messages);
            instance.getLifecycleService().removeLifecycleListener(lifecycle);
        } catch (RuntimeException e) {
            // the instance is shut down already: nothing is registered any more
        }
    }
}
