package dev.leasebox.drain;

import dev.leasebox.outbox.Completion;

/** Counts what a cycle wrote, by kind of completion. Confined to the cycle's thread. */
final class CycleTally {

    private final int claimed;
    private int delivered;
    private int deferred;
    private int retry;
    private int deadLettered;
    private int abandoned;
    private int stale;
    private int released;

    CycleTally(int claimed) {
        this.claimed = claimed;
    }

    /** Counts a completion that was written. */
    void written(Completion completion) {
        if (completion instanceof Completion.Delivered) {
            delivered++;
        } else if (completion instanceof Completion.Saved) {
            deferred++; // the drain saves only deferrals
        } else if (completion instanceof Completion.Failed) {
            retry++;
        } else if (completion instanceof Completion.DeadLettered) {
            deadLettered++;
        } else if (completion instanceof Completion.Released) {
            released++;
        }
    }

    void abandoned(int count) {
        abandoned += count;
    }

    void stale() {
        stale++;
    }

    CycleResult result() {
        return new CycleResult(claimed, delivered, deferred, retry, deadLettered, abandoned, stale, released);
    }
}
