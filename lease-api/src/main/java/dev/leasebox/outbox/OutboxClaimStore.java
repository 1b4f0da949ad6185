package dev.leasebox.outbox;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The claim-capable outbox store: the design record's seven operations.
 *
 * <h2>Contract (every implementation passes {@code OutboxClaimStoreContract})</h2>
 * <ul>
 *   <li><b>Claim before emit.</b> A claim is returned only for a row whose claim fields now carry
 *       it; rows already under an unexpired claim are never returned. A worker that did not get a
 *       claim must not emit.</li>
 *   <li><b>Fences only grow.</b> A claim's token is strictly greater than every token recorded for
 *       the row before; a reclaim after expiry has a higher token and claimAttemptCount + 1.</li>
 *   <li><b>No stale finalization.</b> Every completion is written only while the row's claim token
 *       equals the claim's token; otherwise nothing changes and the {@link CompletionOutcome} says
 *       why. Completions clear the claim fields and keep the fence high-water mark.</li>
 * </ul>
 */
public interface OutboxClaimStore {

    /** Claims up to {@code request.batchSize()} due PENDING or DEFERRED rows. */
    default List<OutboxClaim> claimPending(ClaimRequest request) {
        return claim(ClaimSelection.PENDING, request);
    }

    /** Claims up to {@code request.batchSize()} due RETRYABLE_FAILURE rows. */
    default List<OutboxClaim> claimRetryReady(ClaimRequest request) {
        return claim(ClaimSelection.RETRY_READY, request);
    }

    /**
     * Claims up to {@code request.batchSize()} rows of {@code selection}, oldest due first, in one
     * round trip per phase. {@link ClaimSelection#ELIGIBLE} takes both kinds at once (the drain's call).
     */
    List<OutboxClaim> claim(ClaimSelection selection, ClaimRequest request);

    /** Marks the claimed row DELIVERED. */
    default CompletionOutcome markClaimDelivered(OutboxClaim claim, EmissionResult result) {
        return complete(claim, new Completion.Delivered(result));
    }

    /** Marks the claimed row FAILED (parked; no retry). */
    default CompletionOutcome markClaimFailed(OutboxClaim claim, EmissionError error) {
        return complete(claim, new Completion.Failed(error, Optional.empty()));
    }

    /** Marks the claimed row RETRYABLE_FAILURE, due again at {@code nextRetryAt}. */
    default CompletionOutcome markClaimFailed(OutboxClaim claim, EmissionError error, Instant nextRetryAt) {
        return complete(claim, new Completion.Failed(error, Optional.of(nextRetryAt)));
    }

    /** Marks the claimed row DEAD_LETTERED. */
    default CompletionOutcome markClaimDeadLettered(OutboxClaim claim, EmissionError error, String reason) {
        return complete(claim, new Completion.DeadLettered(error, reason));
    }

    /** Writes the holder's copy of the row's emission state (e.g. DEFERRED until a time). */
    default CompletionOutcome saveClaim(OutboxClaim claim, OutboxEntry entry) {
        if (entry.id() != claim.entryId()) {
            throw new IllegalArgumentException("saveClaim: entry " + entry.id() + " is not the claimed entry " + claim.entryId());
        }
        return complete(claim, new Completion.Saved(entry));
    }

    /** Gives the row back unemitted. */
    default CompletionOutcome releaseClaim(OutboxClaim claim, String reason) {
        return complete(claim, new Completion.Released(reason));
    }

    /** Applies {@code completion} only while the row's claim token equals {@code claim.token()}. */
    CompletionOutcome complete(OutboxClaim claim, Completion completion);

    /**
     * Completes many claims in as few round trips as the store can (one per batch for SQL stores
     * and for external lease releases); outcomes in the order given.
     */
    default List<CompletionOutcome> completeAll(List<ClaimCompletion> completions) {
        List<CompletionOutcome> outcomes = new ArrayList<>(completions.size());
        for (ClaimCompletion c : completions) {
            outcomes.add(complete(c.claim(), c.completion()));
        }
        return outcomes;
    }

    /**
     * Extends each claim to now + {@code leaseDuration}, only while it is still held with its token;
     * returns the claims still held, with their new expiry. A claim absent from the result is lost:
     * do not finalize its emission.
     */
    List<OutboxClaim> renewClaims(List<OutboxClaim> claims, Duration leaseDuration);

    /** The highest fence recorded on any row (0 for an empty outbox). */
    long highestFenceHighWater();

    /** Registers a listener told when claims resting on external leases are lost or at risk. */
    default void addClaimLossListener(ClaimLossListener listener) {
    }
}
