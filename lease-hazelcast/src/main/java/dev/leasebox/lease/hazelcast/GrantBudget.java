package dev.leasebox.lease.hazelcast;

/**
 * The grants a limited acquire may still make, shared by the owner threads that run it in parallel.
 * A thread reserves one grant before it tries a lock and gives it back when the lock was not
 * granted. A thread that finds nothing left waits while other threads' reservations are still open,
 * since a failed try frees its reservation again: so when enough keys are free, exactly the limit
 * is granted, and never more.
 */
final class GrantBudget {

    private int available;
    private int pending;

    GrantBudget(int limit) {
        this.available = limit;
    }

    /** Takes one grant; false when none is left and none can come back. */
    synchronized boolean reserve() throws InterruptedException {
        while (available == 0 && pending > 0) {
            wait();
        }
        if (available == 0) {
            return false;
        }
        available--;
        pending++;
        return true;
    }

    /** The reserved lock was granted. */
    synchronized void used() {
        pending--;
        notifyAll();
    }

    /** The reserved lock was not granted: the grant goes back to the budget. */
    synchronized void giveBack() {
        pending--;
        available++;
        notifyAll();
    }
}
