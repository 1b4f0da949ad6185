package dev.leasebox.chaos.evidence;

import dev.leasebox.chaos.history.FaultEvent;

import java.util.ArrayList;
import java.util.List;

/**
 * One row's state after a committed change, as its audit shows it, and what that says of a delivery of the
 * row: the evidence {@link DeliveryChecker} judges each delivery against.
 */
record RowState(long at, String status, Long claimToken, Long expires, long mark) {

    /**
     * Whether a database fault happened between the recording of the claim under {@code fence} and the receipt of
     * {@code d}: the downstream (the same PostgreSQL) or the renewal of the row's expiry could not be reached, so
     * an emission begun under the live claim may be received after the row's recorded expiry lapsed.
     */
    static boolean stalledByDatabase(List<AuditRecord> rowAudit, long fence, Delivery d, List<FaultEvent> faults) {
        long claimedAt = rowAudit.stream().filter(a -> a.newClaimToken() != null && a.newClaimToken() == fence)
                .mapToLong(AuditRecord::atMicros).min().orElse(Long.MAX_VALUE);
        return faults.stream().anyMatch(f -> DeliveryChecker.DATABASE_OUTAGE.contains(f.fault())
                && claimedAt <= f.t() * 1000 && f.t() * 1000 <= d.receivedMicros());
    }

    /** Why {@code d} was not received under the row's live claim in state {@code at}, or empty when it was. */
    static String withoutLiveClaim(RowState at, long fence, Delivery d, List<AuditRecord> rowAudit,
                                           List<FaultEvent> faults, DeliveryChecker.Mode mode) {
        return at == null ? "no claim of the row was committed before"
                : !Long.valueOf(fence).equals(at.claimToken()) ? "the row's claim token was " + at.claimToken()
                : DeliveryChecker.TERMINAL.contains(at.status()) ? "the row was already " + at.status()
                : at.expires() != null && d.receivedMicros() > at.expires() + mode.expiryToleranceMicros()
                && !stalledByDatabase(rowAudit, fence, d, faults)
                ? "its claim had expired at " + at.expires() + " µs" : "";
    }

    /**
     * The row's state when {@code d} was received. A downstream whose clock counts coarser than the audit's
     * (Kafka's append time, in milliseconds) only says that it was received in {@code [receivedMicros,
     * receivedMicros + resolution)}: the state is then the first in that interval under which the delivery breaks
     * nothing, or the state at its start when there is none.
     */
    static RowState atReceipt(List<AuditRecord> rowAudit, Delivery d, long fence, List<FaultEvent> faults,
                                        DeliveryChecker.Mode mode) {
        RowState start = before(rowAudit, d.receivedMicros());
        if (mode.receiptResolutionMicros() <= 0) {
            return start;
        }
        List<RowState> candidates = new ArrayList<>();
        candidates.add(start);
        for (AuditRecord a : rowAudit) {
            if (a.atMicros() >= d.receivedMicros() && a.atMicros() < d.receivedMicros() + mode.receiptResolutionMicros()) {
                candidates.add(before(rowAudit, a.atMicros() + 1));
            }
        }
        for (RowState at : candidates) {
            boolean superseded = at != null && (at.mark() > fence || (mode.leanRows() && at.mark() == fence));
            if (!superseded && (!mode.recordedClaims() || withoutLiveClaim(at, fence, d, rowAudit, faults, mode).isEmpty())) {
                return at;
            }
        }
        return start;
    }

    /** The row as committed before {@code micros}, or null when the audit shows no change before then. */
    static RowState before(List<AuditRecord> rowAudit, long micros) {
        AuditRecord last = null;
        for (AuditRecord a : rowAudit) {
            if (a.atMicros() < micros) {
                last = a;
            }
        }
        if (last == null) {
            return null;
        }
        return new RowState(last.atMicros(), last.newStatus(), last.newClaimToken(), last.newExpiresMicros(),
                last.newFenceHighWater() == null ? 0 : last.newFenceHighWater());
    }
}
