package dev.leasebox.claim.partition;

import java.util.List;
import java.util.Map;

/**
 * What {@link SlotOutboxStore#registerGrants} did: the grants now recorded as their slots' newest,
 * and for each refused slot the fence high-water mark its grant was not above.
 */
public record SlotRegistration(List<SlotGrant> accepted, Map<Integer, Long> refusedHighWater) {

    public SlotRegistration {
        accepted = List.copyOf(accepted);
        refusedHighWater = Map.copyOf(refusedHighWater);
    }
}
