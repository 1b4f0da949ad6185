package dev.leasebox.drain;

/** One drain cycle: take a batch, emit it, write the results. The claim path or the non-claiming path. */
interface DrainCycle {

    /** Runs one cycle on the calling thread; store failures while taking a batch propagate. */
    CycleResult run();
}
