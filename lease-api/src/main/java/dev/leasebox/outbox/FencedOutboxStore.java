package dev.leasebox.outbox;

import java.time.Instant;
import java.util.Collection;
import java.util.List;

/**
 * What a table-backed store offers so that an external {@link dev.leasebox.lease.LeaseManager}
 * can be layered on it ({@code LeasedOutboxClaimStore}): the row keeps the claim and the fence,
 * the coordinator decides who may write it.
 *
 * <p>Guarantees: {@link #recordClaims} writes a claim only when the grant's token is strictly above
 * the row's fence high-water mark and the row is eligible, raising the mark to the token; an equal
 * token is refused too (after a coordinator's data loss a different grant can carry the same
 * number). Completions are written only while the row's claim token equals the presented one;
 * fenced completions ({@link #completeAllFenced}, the lean claim mode's) only while the presented
 * fence is strictly above the row's high-water mark, which they raise to it. Each method is one round
 * trip per batch.
 */
public interface FencedOutboxStore extends OutboxStore {

    /**
     * The candidate ids of a leased claim ({@link CandidateQuery}): eligible rows of
     * {@code query.selection()} (due, unclaimed or claim expired), at most {@code query.sample()}, none of
     * {@code query.excluded()}, in the order the claim should prefer them, the query's stripe first. The
     * claim asks leases for these keys and reads the rows themselves only after the grant
     * ({@link #recordClaims}, {@link #findEligible}). The reference order is
     * {@link CandidateQuery#preferenceOrder} over the {@link CandidateQuery#stripedWindow()} oldest eligible
     * ids; a store that spreads concurrent workers over a wider window returns its own sample, in the order
     * a claim should prefer it. Reads only, one round trip.
     */
    List<Long> findClaimCandidateIds(CandidateQuery query);

    /**
     * Those of {@code ids} whose rows are eligible for {@code selection} now (due, claim-completable,
     * unclaimed or claim expired), oldest first; unknown ids are left out. Reads only, one round trip.
     * The lean claim path reads the rows it was granted leases for with it, after the grant: a row
     * whose previous holder completed (and released its lease) between the candidate read and the
     * grant is no longer eligible, and is dropped before anything is emitted.
     */
    List<OutboxEntry> findEligible(ClaimSelection selection, Collection<Long> ids);

    /** Records each grant as its row's claim where the fence and eligibility allow, in one statement. */
    ClaimRecording recordClaims(ClaimSelection selection, List<ClaimGrant> grants);

    /** Applies {@code completion} only while the row's claim token equals {@code claim.token()}. */
    CompletionOutcome complete(OutboxClaim claim, Completion completion);

    /** Token-checked completion of many claims in one round trip; outcomes in the order given. */
    List<CompletionOutcome> completeAll(List<ClaimCompletion> completions);

    /**
     * The lean claim mode's completion ({@code ClaimMode.LEAN}): writes each completion, in one round
     * trip, only where the row is claim-completable (PENDING, DEFERRED, RETRYABLE_FAILURE) and the
     * presented claim's token (its lease's fence) is strictly above the row's {@code fence_high_water},
     * and no unexpired recorded claim is on the row (a recorded worker of another fleet holds it: refused as
     * {@link CompletionOutcome.StaleToken}, nothing changes). The row need not carry the claim: its {@code claim_token} is neither required nor compared. A
     * written completion does what {@link dev.leasebox.outbox.Completion#apply} says (claim fields
     * cleared), sets {@code fence_high_water} to the fence and adds one to {@code claim_attempt_count}
     * (so under lean claims the count is of claims that completed). Refusals change nothing and are
     * decided by {@link CompletionOutcome#fencedRefusalFor}; outcomes come in the order given. Of two
     * completions of one row under one fence in a batch, only the first can be written.
     */
    List<CompletionOutcome> completeAllFenced(List<ClaimCompletion> completions);

    /** Moves each claim's expiry to {@code expiresAt} while its token still matches; returns those moved. */
    List<OutboxClaim> extendClaims(List<OutboxClaim> claims, Instant expiresAt);

    /** The highest fence recorded on any row (0 for an empty outbox). */
    long highestFenceHighWater();
}
