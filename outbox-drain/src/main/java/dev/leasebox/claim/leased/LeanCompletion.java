package dev.leasebox.claim.leased;

import dev.leasebox.claim.ClaimMode;
import dev.leasebox.lease.Lease;
import dev.leasebox.outbox.ClaimCompletion;
import dev.leasebox.outbox.CompletionOutcome;
import dev.leasebox.outbox.FencedOutboxStore;
import dev.leasebox.outbox.OutboxClaim;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The completion of lean claims ({@link ClaimMode#LEAN}) in a {@link LeasedOutboxClaimStore}. */
final class LeanCompletion {

    private final FencedOutboxStore store;
    private final Map<Long, Lease> held;

    LeanCompletion(FencedOutboxStore store, Map<Long, Lease> held) {
        this.store = store;
        this.held = held;
    }

    /**
     * Lean completions: only claims whose lease this store still holds under the claim's fence are written
     * (fence-checked by the store); a claim whose lease this store knows it lost, released or never held
     * writes nothing and is refused by what the row says now (a newer grant of the key here: reclaimed).
     */
    List<CompletionOutcome> write(List<ClaimCompletion> completions) {
        CompletionOutcome[] outcomes = new CompletionOutcome[completions.size()];
        List<ClaimCompletion> written = new ArrayList<>(completions.size());
        List<Integer> writtenAt = new ArrayList<>(completions.size());
        for (int i = 0; i < completions.size(); i++) {
            OutboxClaim claim = completions.get(i).claim();
            Lease lease = held.get(claim.entryId());
            if (lease != null && lease.fence() == claim.token()) {
                written.add(completions.get(i));
                writtenAt.add(i);
            } else {
                long newer = lease == null ? 0 : lease.fence();
                outcomes[i] = store.find(claim.entryId())
                        .map(row -> row.status().isTerminal() ? new CompletionOutcome.AlreadyTerminal(claim.token(), row)
                                : newer > claim.token() || row.fenceHighWater() > claim.token()
                                ? new CompletionOutcome.Reclaimed(claim.token(), row)
                                : (CompletionOutcome) new CompletionOutcome.StaleToken(claim.token(), row))
                        .orElseGet(() -> new CompletionOutcome.Missing(claim.token(), claim.entryId()));
            }
        }
        List<CompletionOutcome> fenced = written.isEmpty() ? List.of() : store.completeAllFenced(written);
        for (int k = 0; k < fenced.size(); k++) {
            outcomes[writtenAt.get(k)] = fenced.get(k);
        }
        return List.of(outcomes);
    }
}
