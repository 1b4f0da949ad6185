package dev.leasebox.lease.redis;

import dev.leasebox.lease.WakeUpChannel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.JedisPubSub;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisException;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * One {@link WakeUpChannel} subscription over Redis pub/sub: a thread of its own blocked in {@code SUBSCRIBE
 * <namespace>:wake-up:<topic>} on one connection of the manager's pool, held until {@link #close()}. Redis keeps
 * no message for a subscriber that is not connected: when the connection breaks (Redis restarted, the client
 * killed) the thread subscribes again after a backoff (100 ms doubling to 10 s), and every confirmed
 * subscription tells the listener {@link WakeUpChannel.Listener#subscribed()}. A connection that dies without
 * the socket noticing (a silent network cut) is noticed only by TCP keepalive; hints are lost meanwhile and
 * the drains' poll finds their entries.
 */
final class RedisWakeUps implements WakeUpChannel.Subscription {

    private static final Logger log = LoggerFactory.getLogger(RedisWakeUps.class);
    private static final Duration RETRY_FIRST = Duration.ofMillis(100);
    private static final Duration RETRY_MAX = Duration.ofSeconds(10);

    private final UnifiedJedis redis;
    private final String channel;
    private final WakeUpChannel.Listener listener;
    private final String where;
    private final Object monitor = new Object();
    private final Thread thread;
    private volatile boolean closed;
    private volatile JedisPubSub current;
    private volatile boolean failing;

    private RedisWakeUps(UnifiedJedis redis, String channel, WakeUpChannel.Listener listener, String where) {
        this.redis = redis;
        this.channel = channel;
        this.listener = listener;
        this.where = where;
        this.thread = new Thread(this::run, "leasebox-redis-wake-ups");
        this.thread.setDaemon(true);
    }

    static RedisWakeUps subscribe(UnifiedJedis redis, String channel, WakeUpChannel.Listener listener, String where) {
        RedisWakeUps subscription = new RedisWakeUps(redis, channel, Objects.requireNonNull(listener, "listener"), where);
        subscription.thread.start();
        return subscription;
    }

    private void run() {
        Duration retry = RETRY_FIRST;
        while (!closed) {
            JedisPubSub pubSub = new JedisPubSub() {
                @Override
                public void onSubscribe(String subscribed, int count) {
                    if (closed) {
                        unsubscribe(); // closed while SUBSCRIBE was on its way
                        return;
                    }
                    if (failing) {
                        failing = false;
                        log.info("Wake-ups on Redis at {} ({}) are heard again", where, channel);
                    }
                    listener.subscribed();
                }

                @Override
                public void onMessage(String from, String hint) {
                    listener.hint(hint);
                }
            };
            current = pubSub;
            try {
                if (closed) {
                    return;
                }
                redis.subscribe(pubSub, channel); // returns when unsubscribed
                retry = RETRY_FIRST;
            } catch (JedisException | IllegalStateException e) {
                if (!closed && !failing) {
                    log.warn("Wake-ups on Redis at {} ({}) are interrupted ({}): subscribing again with backoff; drains poll "
                            + "meanwhile", where, channel, e.toString());
                    failing = true;
                }
            }
            if (!closed) {
                pause(retry);
                retry = retry.multipliedBy(2).compareTo(RETRY_MAX) > 0 ? RETRY_MAX : retry.multipliedBy(2);
            }
        }
    }

    private void pause(Duration duration) {
        long deadline = System.nanoTime() + duration.toNanos();
        synchronized (monitor) {
            long left;
            while (!closed && (left = deadline - System.nanoTime()) > 0) {
                try {
                    TimeUnit.NANOSECONDS.timedWait(monitor, left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    @Override
    public void close() {
        synchronized (monitor) {
            if (closed) {
                return;
            }
            closed = true;
            monitor.notifyAll();
        }
        JedisPubSub pubSub = current;
        try {
            if (pubSub != null && pubSub.isSubscribed()) {
                pubSub.unsubscribe();
            }
        } catch (JedisException | IllegalStateException e) {
            // the connection is gone already: the thread ends on its own
        }
        try {
            thread.join(TimeUnit.SECONDS.toMillis(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
