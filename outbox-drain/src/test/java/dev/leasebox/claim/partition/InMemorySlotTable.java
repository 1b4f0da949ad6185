package dev.leasebox.claim.partition;

import dev.leasebox.outbox.ClaimRequest;
import dev.leasebox.outbox.ClaimSelection;
import dev.leasebox.outbox.Completion;
import dev.leasebox.outbox.CompletionOutcome;
import dev.leasebox.outbox.EmissionStatus;
import dev.leasebox.outbox.OutboxClaim;
import dev.leasebox.outbox.OutboxEntry;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * An outbox table with its slot table, in memory, for model checks of the lean partition bookkeeping: the
 * guarantees of {@link SlotOutboxStore} for lean claims (registration only above the slot's mark; a lean
 * completion only under the slot's newest grant and only above the row's mark), nothing else. Every row
 * lives in the slot its id names ({@code id % slotCount}). One monitor makes each operation atomic, as one
 * statement is.
 */
final class InMemorySlotTable implements SlotOutboxStore {

    private final int slotCount;
    private final Map<Integer, Long> slotFences = new HashMap<>();
    private final Map<Long, OutboxEntry> rows = new TreeMap<>();

    InMemorySlotTable(int slotCount) {
        this.slotCount = slotCount;
    }

    synchronized void insert(long id, Instant at) {
        rows.put(id, OutboxEntry.builder().id(id).idempotencyKey("k" + id).type("t").payload(new byte[] {1})
                .status(EmissionStatus.PENDING).createdAt(at).build());
    }

    synchronized OutboxEntry row(long id) {
        return rows.get(id);
    }

    @Override
    public int slotCount() {
        return slotCount;
    }

    @Override
    public synchronized long highestSlotFence() {
        return slotFences.values().stream().mapToLong(Long::longValue).max().orElse(0);
    }

    @Override
    public synchronized SlotRegistration registerGrants(List<SlotGrant> grants) {
        List<SlotGrant> accepted = new ArrayList<>();
        Map<Integer, Long> refused = new HashMap<>();
        for (SlotGrant g : grants) {
            long mark = slotFences.getOrDefault(g.slot(), 0L);
            if (g.fence() > mark) {
                slotFences.put(g.slot(), g.fence());
                accepted.add(g);
            } else {
                refused.put(g.slot(), mark);
            }
        }
        return new SlotRegistration(accepted, refused);
    }

    @Override
    public List<OutboxClaim> claimInSlots(ClaimSelection selection, ClaimRequest request, List<SlotGrant> grants,
                                          boolean ordered) {
        throw new UnsupportedOperationException("recorded claims are not modelled");
    }

    @Override
    public synchronized List<SlottedEntry> selectInSlots(ClaimSelection selection, int limit, List<SlotGrant> grants,
                                                         boolean ordered, Collection<Long> inFlight) {
        List<SlottedEntry> read = new ArrayList<>();
        for (OutboxEntry e : rows.values()) {
            int slot = (int) (e.id() % slotCount);
            if (read.size() < limit && eligible(e) && !inFlight.contains(e.id())
                    && grants.stream().anyMatch(g -> g.slot() == slot)) {
                read.add(new SlottedEntry(slot, e));
            }
        }
        return read;
    }

    private static boolean eligible(OutboxEntry e) {
        return e.status() == EmissionStatus.PENDING || e.status() == EmissionStatus.RETRYABLE_FAILURE;
    }

    @Override
    public synchronized List<CompletionOutcome> completeInSlots(List<SlotCompletion> completions) {
        List<CompletionOutcome> outcomes = new ArrayList<>();
        for (SlotCompletion c : completions) {
            long token = c.claim().token();
            OutboxEntry current = rows.get(c.claim().entryId());
            boolean newestGrant = slotFences.getOrDefault(c.slot(), 0L) == token;
            if (!newestGrant || current.fenceHighWater() >= token || !eligible(current)) {
                outcomes.add(new CompletionOutcome.StaleToken(token, current));
                continue;
            }
            OutboxEntry written = Completion.apply(c.completion(), current).toBuilder().fenceHighWater(token).build();
            rows.put(written.id(), written);
            outcomes.add(new CompletionOutcome.Completed(written));
        }
        return outcomes;
    }
}
