package dev.leasebox.chaos.evidence;

import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A run whose fleet switched claim style must not make the new fleet re-emit without end: from the deliveries
 * alone, the workers that took over may deliver each entry once, plus at most one batch per worker of repeats
 * (a batch in flight when a slot moves). {@value #EXCESS} counts the deliveries beyond that bound; a fleet that
 * emits rows its completions can never finish (a slot fence below the rows' high-water marks) breaks it at once.
 */
public final class SwitchBound {

    /** Deliveries by the switched-in fleet beyond one per entry plus one batch per worker. */
    public static final String EXCESS = "excessEmissionsAfterSwitch";

    /** What the class breaks, for the report's list of broken invariants. */
    public static final String MEANING = "emissions after a switch of claim style at most the entries plus one batch per "
            + "worker, from the deliveries";

    private SwitchBound() {
    }

    /**
     * @param switchedWorkers the workers that took over (empty: the run kept one claim style, nothing is judged)
     * @param batch           the rows each of them claims per batch
     */
    public static AuditChecker.Result check(List<Delivery> deliveries, Set<String> switchedWorkers, int batch) {
        if (switchedWorkers.isEmpty()) {
            return AuditChecker.Result.none();
        }
        int total = 0;
        Set<Long> entries = new HashSet<>();
        for (Delivery d : deliveries) {
            if (switchedWorkers.contains(String.valueOf(d.worker()))) {
                total++;
                entries.add(d.entryId());
            }
        }
        long bound = entries.size() + (long) batch * switchedWorkers.size();
        int excess = (int) Math.max(0, total - bound);
        Map<String, Integer> counts = new LinkedHashMap<>();
        counts.put(EXCESS, excess);
        List<String> lines = excess == 0 ? List.of() : List.of("[" + EXCESS + "] " + switchedWorkers + " delivered "
                + total + " times for " + entries.size() + " entries: " + excess + " above the bound of " + bound
                + " (entries + " + batch + " per worker)");
        return new AuditChecker.Result(counts, lines, deliveries.size());
    }
}
