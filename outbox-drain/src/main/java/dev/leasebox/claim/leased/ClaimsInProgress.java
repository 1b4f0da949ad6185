package dev.leasebox.claim.leased;

import dev.leasebox.lease.Lease;

import java.util.Collection;
import java.util.HashSet;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The claim calls of a {@link LeasedOutboxClaimStore} in progress, from before their lease request until
 * their grants are in the store's held map, with the losses reported meanwhile for the rows they ask for.
 *
 * <p>Guarantee: a loss reported for a grant at any moment after the grant is seen either by
 * {@link ClaimLossForwarder} in the held map (and forwarded) or by the claim call that made the grant,
 * which then hands the row out to nobody. The forwarder records a loss here before it looks at the held
 * map; a claim call puts a grant in the held map before it asks here; so one of the two always sees the
 * other. What a call records lives only as long as the call.
 */
final class ClaimsInProgress {

    private final Set<Call> calls = ConcurrentHashMap.newKeySet();

    /** Registers a claim call for {@code entryIds}, before their leases are requested; close it when done. */
    Call open(Collection<Long> entryIds) {
        Call call = new Call(Set.copyOf(entryIds));
        calls.add(call);
        return call;
    }

    /** The rows that claim calls in progress are asking for. */
    Set<Long> asking() {
        Set<Long> ids = new HashSet<>();
        calls.forEach(call -> ids.addAll(call.entryIds));
        return ids;
    }

    /** Records that {@code lease}, on row {@code entryId}, is lost, for every call in progress that asks for the row. */
    void lost(long entryId, Lease lease) {
        for (Call call : calls) {
            if (call.entryIds.contains(entryId)) {
                call.lost.add(lease);
            }
        }
    }

    /** One claim call: the rows it asks for and the losses reported for them while it runs. */
    final class Call implements AutoCloseable {
        private final Set<Long> entryIds;
        private final Queue<Lease> lost = new ConcurrentLinkedQueue<>();

        private Call(Set<Long> entryIds) {
            this.entryIds = entryIds;
        }

        /** Whether a loss of {@code lease}'s grant was reported since this call opened. */
        boolean wasLost(Lease lease) {
            for (Lease l : lost) {
                if (l.sameGrant(lease)) {
                    return true;
                }
            }
            return false;
        }

        @Override
        public void close() {
            calls.remove(this);
        }
    }
}
