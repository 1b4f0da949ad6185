package dev.leasebox.lease.hazelcast;

import com.hazelcast.cp.lock.FencedLock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The owner thread's proxy cache: kept per name, least recently used out first, forgotten on demand. */
class OwnerThreadTest {

    private final OwnerThread thread = new OwnerThread("owner-thread-test", 2);
    private final List<String> fetched = new ArrayList<>();

    @AfterEach
    void stop() {
        thread.executor().shutdownNow();
    }

    @Test
    void aProxyIsFetchedOnceAndKept() throws Exception {
        FencedLock first = onThread("a");
        FencedLock again = onThread("a");

        assertThat(again).isSameAs(first);
        assertThat(fetched).containsExactly("a");
    }

    @Test
    void theLeastRecentlyUsedProxyGoesFirstWhenTheCapacityIsReached() throws Exception {
        onThread("a");
        onThread("b");
        onThread("a");
        onThread("c");

        onThread("a");
        onThread("b");

        assertThat(fetched).as("b was the least recently used when c came").containsExactly("a", "b", "c", "b");
        assertThat(thread.submit(thread::proxiesKept).get(5, TimeUnit.SECONDS)).isEqualTo(2);
    }

    @Test
    void aForgottenProxyIsFetchedAgain() throws Exception {
        onThread("a");
        thread.submit(() -> {
            thread.forget("a");
            return null;
        }).get(5, TimeUnit.SECONDS);
        onThread("a");

        assertThat(fetched).containsExactly("a", "a");
    }

    @Test
    void aCapacityBelowOneIsRefused() {
        assertThatThrownBy(() -> new OwnerThread("bad", 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("proxyCapacity must be positive, was 0");
    }

    private FencedLock onThread(String name) throws Exception {
        return thread.submit(() -> thread.lock(name, n -> {
            fetched.add(n);
            return dummyLock(n);
        })).get(5, TimeUnit.SECONDS);
    }

    /** A stand-in FencedLock: the cache never calls it. */
    private static FencedLock dummyLock(String name) {
        return (FencedLock) Proxy.newProxyInstance(FencedLock.class.getClassLoader(), new Class<?>[]{FencedLock.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "toString" -> "dummy " + name;
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }
}
