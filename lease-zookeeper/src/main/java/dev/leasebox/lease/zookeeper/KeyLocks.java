package dev.leasebox.lease.zookeeper;

import java.util.Collection;
import java.util.TreeSet;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Striped locks over lease keys: one writer at a time per key. A batch locks the stripes of all its keys in
 * ascending stripe order, so two batches never wait on each other in a cycle; keys sharing a stripe only wait
 * for each other, which costs time, never correctness.
 */
final class KeyLocks {

    /** The stripes a batch holds; closing releases them. */
    interface Held extends AutoCloseable {
        @Override
        void close();
    }

    private final ReentrantLock[] stripes;

    KeyLocks(int stripes) {
        this.stripes = new ReentrantLock[stripes];
        for (int i = 0; i < stripes; i++) {
            this.stripes[i] = new ReentrantLock();
        }
    }

    /** Locks every stripe of {@code keys}, waiting as long as it takes; the caller closes what it gets. */
    Held lock(Collection<String> keys) {
        TreeSet<Integer> indexes = new TreeSet<>();
        for (String key : keys) {
            indexes.add(Math.floorMod(key.hashCode(), stripes.length));
        }
        for (int index : indexes) {
            stripes[index].lock();
        }
        return () -> {
            for (int index : indexes.descendingSet()) {
                stripes[index].unlock();
            }
        };
    }
}
