package dev.leasebox.cli;

import dev.leasebox.drain.DrainListener;

import java.util.concurrent.atomic.AtomicBoolean;

/** Whether a claim loop found nothing to do since the last time this was asked. */
final class IdlePolls implements DrainListener {

    private final AtomicBoolean seen = new AtomicBoolean();

    @Override
    public void idlePoll() {
        seen.set(true);
    }

    /** True once after each run of idle polls: asking clears it. */
    boolean seenSinceLastAsked() {
        return seen.getAndSet(false);
    }
}
