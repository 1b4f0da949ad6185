package dev.leasebox.bench;

import java.util.Arrays;

/**
 * Claim latencies of one measurement window, in nanoseconds, from any number of threads. Records
 * only while {@link #recording()} is on, so the warm-up and the shutdown stay out of the figures.
 */
final class LatencyRecorder {

    private long[] samples = new long[4_096];
    private int size;
    private volatile boolean recording;

    void start() {
        recording = true;
    }

    void stop() {
        recording = false;
    }

    boolean recording() {
        return recording;
    }

    void record(long nanos) {
        if (!recording) {
            return;
        }
        synchronized (this) {
            if (size == samples.length) {
                samples = Arrays.copyOf(samples, size * 2);
            }
            samples[size++] = nanos;
        }
    }

    /** The samples recorded so far, sorted ascending. */
    synchronized long[] sorted() {
        long[] copy = Arrays.copyOf(samples, size);
        Arrays.sort(copy);
        return copy;
    }
}
