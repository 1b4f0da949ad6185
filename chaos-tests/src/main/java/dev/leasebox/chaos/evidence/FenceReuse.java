package dev.leasebox.chaos.evidence;

import dev.leasebox.chaos.history.FaultEvent;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;

/**
 * One fence of one entry delivered more than once: by two workers ({@value DeliveryChecker#FENCE_TWO_WORKERS}, a
 * same-fence re-grant) or twice by one ({@value DeliveryChecker#FENCE_REPEATED}, two emissions under one token). A
 * token is emitted at most once, whatever ended its emission. With lean claims a coordinator data loss between the two
 * deliveries excuses either: the coordinator may then grant a number again, and the store refuses the equal token's
 * completion.
 */
final class FenceReuse {

    private FenceReuse() {
    }

    /**
     * Judges one entry's deliveries, in the order received.
     *
     * @param lean      the run's claims are lean (nothing recorded on the row before emitting)
     * @param dataLoss  the coordinator data losses of the fault log
     * @param violation told each violation: its class and what happened
     */
    static void judge(List<Delivery> ds, boolean lean, List<FaultEvent> dataLoss, BiConsumer<String, String> violation) {
        Map<Long, Delivery> firstByFence = new HashMap<>();
        for (Delivery d : ds) {
            if (d.fence() == null) {
                continue;
            }
            Delivery first = firstByFence.putIfAbsent(d.fence(), d);
            if (first == null || lean && dataLoss.stream().anyMatch(
                    f -> first.receivedMicros() <= f.t() * 1000 && f.t() * 1000 <= d.receivedMicros())) {
                continue;
            }
            if (!String.valueOf(first.worker()).equals(String.valueOf(d.worker()))) {
                violation.accept(DeliveryChecker.FENCE_TWO_WORKERS, "fence " + d.fence() + " presented by "
                        + first.worker() + " (delivery seq " + first.seq() + ") and by " + d.worker()
                        + " (delivery seq " + d.seq() + ")");
            } else {
                violation.accept(DeliveryChecker.FENCE_REPEATED, "emitted twice under fence " + d.fence() + " by "
                        + d.worker() + " (delivery seq " + first.seq() + " at " + first.receivedMicros() + " µs and seq "
                        + d.seq() + " at " + d.receivedMicros() + " µs): a second emission must carry a higher token");
            }
        }
    }
}
