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
    /** Per owner, the entries whose claims its drain reported lost, abandoned or refused. */
    private final Map<String, java.util.Set<Long>> lost = new ConcurrentHashMap<>();

    void emitted(long entryId, long fence, String owner) {
        emissions.compute(entryId, (id, list) -> { // compute holds the entry's lock: the list is appended under it
            List<Emission> next = list == null ? new ArrayList<>(1) : list;
            next.add(new Emission(fence, owner));
            return next;
        });
    }

    /** Records that {@code owner}'s drain reported these entries' claims lost, abandoned or refused. */
    void lost(String owner, java.util.Collection<Long> entryIds) {
        lost.computeIfAbsent(owner, o -> ConcurrentHashMap.newKeySet()).addAll(entryIds);
    }

    /** Whether {@code owner}'s drain reported the claim on {@code entryId} lost, abandoned or refused. */
    boolean lost(String owner, long entryId) {
        return lost.getOrDefault(owner, java.util.Set.of()).contains(entryId);
    }

    /** A drain listener that records the losses {@code owner}'s drain reports. */
    dev.leasebox.drain.DrainListener lossesOf(String owner) {
        return new dev.leasebox.drain.DrainListener() {
            @Override
            public void claimsLost(java.util.Set<Long> entryIds, String cause) {
                lost(owner, entryIds);
            }

            @Override
            public void claimsAbandoned(java.util.Set<Long> entryIds, String reason) {
                lost(owner, entryIds);
            }

            @Override
            public void completionRefused(long entryId, dev.leasebox.outbox.Completion completion,
                                          dev.leasebox.outbox.CompletionOutcome refusal) {
                lost(owner, java.util.List.of(entryId));
            }
        };
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
