package dev.leasebox.drain;

import dev.leasebox.drain.OutboxDrain.State;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * An {@link OutboxDrain}'s state, its stop signal and the count of cycles in flight, changed together
 * under one monitor: a cycle is admitted only while the drain is not stopping, and once stopping is
 * visible the stop signal has already been given, so {@link #awaitNoCyclesUntil} waits for every cycle
 * that could still write.
 */
final class DrainLifecycle {

    private final String owner;
    private final AtomicReference<State> state = new AtomicReference<>(State.NEW);
    private final CountDownLatch stopSignal = new CountDownLatch(1);
    private final Object inFlightMonitor = new Object();
    private int inFlight; // guarded by inFlightMonitor
    private volatile boolean halted;

    DrainLifecycle(String owner) {
        this.owner = owner;
    }

    State state() {
        return state.get();
    }

    boolean start() {
        return state.compareAndSet(State.NEW, State.RUNNING);
    }

    boolean stopRequested() {
        return stopSignal.getCount() == 0;
    }

    boolean halted() {
        return halted;
    }

    /** Waits up to {@code timeout} for the stop signal; true when it came (or the wait was interrupted). */
    boolean awaitStop(Duration timeout) {
        try {
            return stopSignal.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return true;
        }
    }

    /** A cycle on the caller's thread begins: refused once the drain is stopping or closed. */
    void enter() {
        synchronized (inFlightMonitor) {
            State s = state.get();
            if (s == State.STOPPING || s == State.CLOSED) {
                throw new IllegalStateException("OutboxDrain " + owner + " is " + s + "; build a new drain");
            }
            inFlight++;
        }
    }

    /** A polling loop's cycle begins: its loop checks the stop signal itself. */
    void enterLoopCycle() {
        synchronized (inFlightMonitor) {
            inFlight++;
        }
    }

    void exit() {
        synchronized (inFlightMonitor) {
            inFlight--;
            inFlightMonitor.notifyAll();
        }
    }

    /** Gives the stop signal and moves to STOPPING; false when the drain was already stopping or closed. */
    boolean beginStopping() {
        synchronized (inFlightMonitor) {
            State previous = state.get();
            if (previous == State.STOPPING || previous == State.CLOSED) {
                return false;
            }
            stopSignal.countDown(); // before STOPPING is visible: whoever sees STOPPING sees the stop
            state.set(State.STOPPING);
            return true;
        }
    }

    /** As {@link #beginStopping()}, marking the drain halted so no further write is sent; false when closed. */
    boolean beginHalt() {
        synchronized (inFlightMonitor) {
            if (state.get() == State.CLOSED) {
                return false;
            }
            halted = true;
            stopSignal.countDown();
            state.set(State.STOPPING);
            return true;
        }
    }

    /** Waits until no cycle is in flight; false when {@code deadlineNanos} (of {@link System#nanoTime()}) came first. */
    boolean awaitNoCyclesUntil(long deadlineNanos) throws InterruptedException {
        synchronized (inFlightMonitor) {
            while (inFlight > 0) {
                long left = deadlineNanos - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                TimeUnit.NANOSECONDS.timedWait(inFlightMonitor, left);
            }
            return true;
        }
    }

    void closed() {
        state.set(State.CLOSED);
    }
}
