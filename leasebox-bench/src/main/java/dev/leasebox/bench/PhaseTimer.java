package dev.leasebox.bench;

import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Mean time per call of each phase of the claim path (candidate read, lease acquisition, claim record or
 * the lean path's post-grant read, completion, release, renewal), from any number of threads, recorded only while the window is
 * measured. It answers "where do the milliseconds of a batch go", which the claim latency alone does
 * not.
 */
final class PhaseTimer {

    /** The phases, in the order a batch goes through them. */
    static final String[] ORDER = {"candidates", "acquire", "record", "eligible", "claim", "complete", "release", "renew", "extend"};

    private final Map<String, LongAdder[]> phases = new ConcurrentHashMap<>();
    private volatile boolean recording;

    void start() {
        recording = true;
    }

    void stop() {
        recording = false;
    }

    /** Adds one call of {@code phase} that took {@code nanos}. */
    void record(String phase, long nanos) {
        if (!recording) {
            return;
        }
        LongAdder[] sums = phases.computeIfAbsent(phase, p -> new LongAdder[] {new LongAdder(), new LongAdder()});
        sums[0].increment();
        sums[1].add(nanos);
    }

    /** "candidates 2.10 ms, acquire 1.05 ms, …": the mean per call of each phase seen, in batch order. */
    String summary() {
        StringJoiner out = new StringJoiner(", ");
        for (String phase : ORDER) {
            LongAdder[] sums = phases.get(phase);
            if (sums != null && sums[0].sum() > 0) {
                out.add(String.format(Locale.ROOT, "%s %.2f ms", phase, sums[1].sum() / 1e6 / sums[0].sum()));
            }
        }
        return out.toString();
    }
}
