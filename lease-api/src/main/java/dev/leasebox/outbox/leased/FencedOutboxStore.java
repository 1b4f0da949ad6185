package dev.leasebox.outbox.leased;

import dev.leasebox.outbox.ClaimCompletion;
import dev.leasebox.outbox.ClaimSelection;
import dev.leasebox.outbox.Completion;
import dev.leasebox.outbox.CompletionOutcome;
import dev.leasebox.outbox.OutboxClaim;
import dev.leasebox.outbox.OutboxEntry;
import dev.leasebox.outbox.OutboxStore;

import java.time.Instant;
import java.util.List;

/**
 * What a table-backed store offers so that an external {@link dev.leasebox.lease.LeaseManager}
 * can be layered on it ({@link LeasedOutboxClaimStore}): the row keeps the claim and the fence,
 * the coordinator decides who may write it.
 *
 * <p>Guarantees: {@link #recordClaims} writes a claim only when the grant's token is strictly above
 * the row's fence high-water mark and the row is eligible, raising the mark to the token; an equal
 * token is refused too (after a coordinator's data loss a different grant can carry the same
 * number). Completions are written only while the row's claim token equals the presented one.
 * Each method is one round trip per batch.
 */
public interface FencedOutboxStore extends OutboxStore {

    /** Eligible rows of {@code selection} (due, unclaimed or claim expired), oldest first. Reads only. */
    List<OutboxEntry> findClaimCandidates(ClaimSelection selection, int limit);

    /** Records each grant as its row's claim where the fence and eligibility allow, in one statement. */
    ClaimRecording recordClaims(ClaimSelection selection, List<ClaimGrant> grants);

    /** Applies {@code completion} only while the row's claim token equals {@code claim.token()}. */
    CompletionOutcome complete(OutboxClaim claim, Completion completion);

    /** Token-checked completion of many claims in one round trip; outcomes in the order given. */
    List<CompletionOutcome> completeAll(List<ClaimCompletion> completions);

    /** Moves each claim's expiry to {@code expiresAt} while its token still matches; returns those moved. */
    List<OutboxClaim> extendClaims(List<OutboxClaim> claims, Instant expiresAt);

    /** The highest fence recorded on any row (0 for an empty outbox). */
    long highestFenceHighWater();
}
