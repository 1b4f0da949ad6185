package dev.leasebox.bench;

import java.util.Map;
import java.util.Optional;

/**
 * Processes whose CPU a cell reports, read at the start and at the end of its window as clock ticks per
 * process (or per process tree, summed under one key).
 */
interface TickSource {

    /** Ticks so far, per process; empty when they cannot be read. */
    Optional<Map<Long, Long>> ticks();

    /** What is read, for the report. */
    String description();

    /**
     * The ticks spent between two readings: what each process of the later reading gained since the earlier
     * one, all of its ticks for a process born since, nothing for one that has gone (its last ticks are lost).
     */
    static long between(Map<Long, Long> earlier, Map<Long, Long> later) {
        long ticks = 0;
        for (Map.Entry<Long, Long> e : later.entrySet()) {
            ticks += Math.max(0, e.getValue() - earlier.getOrDefault(e.getKey(), 0L));
        }
        return ticks;
    }
}
