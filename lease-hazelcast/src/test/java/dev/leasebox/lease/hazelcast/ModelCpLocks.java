package dev.leasebox.lease.hazelcast;

import com.hazelcast.core.OperationTimeoutException;
import com.hazelcast.cp.CPGroupId;
import com.hazelcast.cp.lock.FencedLock;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;

/**
 * The FencedLocks of one CP group, in memory, for model checking: each call is one atomic step of the
 * group's Raft log, whose index is the fence of an acquisition. A lock is held by one owner with a hold
 * count: a {@code tryLock} by its holder re-enters it (count plus one, the first acquisition's fence), one
 * by anybody else gets {@link FencedLock#INVALID_FENCE}; {@code unlock} by anybody but the holder throws
 * {@link IllegalMonitorStateException}, as Hazelcast's does. Every call through {@link #proxy} comes from the
 * one owner thread of the manager under test ({@link #MANAGER}); another manager takes locks with
 * {@link #tryLockByAnother}. Fault: the next {@code tryLock} can take effect on the group and then fail as a
 * lost reply does ({@link #loseNextTryLockReply}).
 */
final class ModelCpLocks {

    /** The owner (CP session and thread) of every call made through the proxies. */
    static final String MANAGER = "the manager's owner thread";

    /** Who holds a lock, how many times, under which fence. */
    record Hold(String owner, int count, long fence) {
    }

    private final Map<String, Hold> holds = new HashMap<>();
    /** Fences returned by a tryLock that re-entered a lock (hold count above one after it). */
    private final List<Long> reentered = new ArrayList<>();
    private long raftIndex;
    private boolean loseNextReply;

    /** The proxy of lock {@code name}, as {@code CPSubsystem.getLock} returns it. */
    FencedLock proxy(String name) {
        return new Proxy(name);
    }

    /** The next tryLock through a proxy takes effect, then fails as a reply lost past the invocation timeout. */
    synchronized void loseNextTryLockReply() {
        loseNextReply = true;
    }

    /** Another manager's tryLock of {@code name}: its fence, or INVALID_FENCE when the lock is held. */
    synchronized long tryLockByAnother(String name) {
        return tryLock(name, "another manager");
    }

    /** Who holds {@code name} now. */
    synchronized Optional<Hold> hold(String name) {
        return Optional.ofNullable(holds.get(name));
    }

    /** Whether a tryLock that re-entered a lock returned {@code fence}. */
    synchronized boolean reenteredUnder(long fence) {
        return reentered.contains(fence);
    }

    private long tryLock(String name, String owner) {
        Hold hold = holds.get(name);
        raftIndex++;
        if (hold == null) {
            holds.put(name, new Hold(owner, 1, raftIndex));
            return raftIndex;
        }
        if (!hold.owner().equals(owner)) {
            return FencedLock.INVALID_FENCE;
        }
        holds.put(name, new Hold(owner, hold.count() + 1, hold.fence()));
        reentered.add(hold.fence());
        return hold.fence();
    }

    private synchronized long tryLockByManager(String name) {
        long fence = tryLock(name, MANAGER);
        if (loseNextReply) {
            loseNextReply = false;
            throw new OperationTimeoutException("model CP group: the reply of tryLock(" + name + ") was lost after it took effect");
        }
        return fence;
    }

    private synchronized void unlockByManager(String name) {
        Hold hold = holds.get(name);
        if (hold == null || !hold.owner().equals(MANAGER)) {
            throw new IllegalMonitorStateException("model CP group: " + name + " is not held by the current thread");
        }
        raftIndex++;
        if (hold.count() == 1) {
            holds.remove(name);
        } else {
            holds.put(name, new Hold(MANAGER, hold.count() - 1, hold.fence()));
        }
    }

    private synchronized long fenceOfManager(String name) {
        Hold hold = holds.get(name);
        if (hold == null || !hold.owner().equals(MANAGER)) {
            throw new IllegalMonitorStateException("model CP group: " + name + " is not held by the current thread");
        }
        return hold.fence();
    }

    private synchronized int count(String name) {
        Hold hold = holds.get(name);
        return hold == null ? 0 : hold.count();
    }

    /** A FencedLock proxy whose calls are the manager's owner thread's. */
    private final class Proxy implements FencedLock {
        private final String name;

        Proxy(String name) {
            this.name = name;
        }

        @Override
        public long tryLockAndGetFence() {
            return tryLockByManager(name);
        }

        @Override
        public boolean tryLock() {
            return tryLockAndGetFence() != INVALID_FENCE;
        }

        @Override
        public void unlock() {
            unlockByManager(name);
        }

        @Override
        public long getFence() {
            return fenceOfManager(name);
        }

        @Override
        public int getLockCount() {
            return count(name);
        }

        @Override
        public boolean isLocked() {
            return count(name) > 0;
        }

        @Override
        public boolean isLockedByCurrentThread() {
            return hold(name).map(h -> h.owner().equals(MANAGER)).orElse(false);
        }

        @Override
        public String getName() {
            return name;
        }

        @Override
        public void lock() {
            throw unused("lock");
        }

        @Override
        public void lockInterruptibly() {
            throw unused("lockInterruptibly");
        }

        @Override
        public long lockAndGetFence() {
            throw unused("lockAndGetFence");
        }

        @Override
        public boolean tryLock(long time, TimeUnit unit) {
            throw unused("tryLock with a timeout");
        }

        @Override
        public long tryLockAndGetFence(long time, TimeUnit unit) {
            throw unused("tryLockAndGetFence with a timeout");
        }

        @Override
        public CPGroupId getGroupId() {
            throw unused("getGroupId");
        }

        @Override
        public Condition newCondition() {
            throw unused("newCondition");
        }

        @Override
        public String getPartitionKey() {
            throw unused("getPartitionKey");
        }

        @Override
        public String getServiceName() {
            throw unused("getServiceName");
        }

        @Override
        public void destroy() {
            throw unused("destroy");
        }

        private UnsupportedOperationException unused(String call) {
            return new UnsupportedOperationException("the manager does not call " + call + " on a lease's lock");
        }
    }
}
