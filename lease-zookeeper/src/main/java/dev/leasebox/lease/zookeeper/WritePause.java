package dev.leasebox.lease.zookeeper;

/**
 * Test-only hooks on the write path, called on the calling thread: {@link #beforeTakeover()} after a
 * round has read a node as expired and before its takeover writes are sent, {@link #beforeRenewal()}
 * after a renewal has checked its local deadlines and before its writes are sent. A test blocks in
 * them to play a manager frozen (or a request held in transit) at exactly that point.
 */
interface WritePause {

    WritePause NONE = new WritePause() {
    };

    default void beforeTakeover() {
    }

    default void beforeRenewal() {
    }
}
