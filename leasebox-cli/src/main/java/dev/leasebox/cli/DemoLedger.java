package dev.leasebox.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** The demo provider's record of every emission: which owner emitted which entry under which fence. */
final class DemoLedger {

    record Emission(long fence, String owner) {
    }

    private final Map<Long, List<Emission>> emissions = new ConcurrentHashMap<>();

    void emitted(long entryId, long fence, String owner) {
        emissions.compute(entryId, (id, list) -> {
            List<Emission> next = list == null ? new ArrayList<>(1) : list;
            next.add(new Emission(fence, owner));
            return next;
        });
    }

    List<Emission> of(long entryId) {
        List<Emission> list = emissions.get(entryId);
        return list == null ? List.of() : List.copyOf(list);
    }

    /** Entries emitted more than once, with all their emissions. */
    Map<Long, List<Emission>> duplicates() {
        Map<Long, List<Emission>> duplicates = new java.util.TreeMap<>();
        emissions.forEach((id, list) -> {
            synchronized (list) {
                if (list.size() > 1) {
                    duplicates.put(id, List.copyOf(list));
                }
            }
        });
        return duplicates;
    }

    long emissionsBy(String owner) {
        return emissions.values().stream().flatMap(List::stream).filter(e -> e.owner().equals(owner)).count();
    }
}
