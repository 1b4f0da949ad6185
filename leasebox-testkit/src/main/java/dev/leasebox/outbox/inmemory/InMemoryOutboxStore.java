package dev.leasebox.outbox.inmemory;

import dev.leasebox.outbox.CandidateQuery;
import dev.leasebox.outbox.ClaimCompletion;
import dev.leasebox.outbox.ClaimRequest;
import dev.leasebox.outbox.ClaimSelection;
import dev.leasebox.outbox.Completion;
import dev.leasebox.outbox.CompletionOutcome;
import dev.leasebox.outbox.OutboxClaim;
import dev.leasebox.outbox.OutboxClaimStore;
import dev.leasebox.outbox.OutboxEntry;
import dev.leasebox.outbox.OutboxMessage;
import dev.leasebox.outbox.ClaimGrant;
import dev.leasebox.outbox.ClaimRecording;
import dev.leasebox.outbox.FencedOutboxStore;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.NavigableMap;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * The reference outbox store, in memory: both a claim store of its own (tokens from an internal
 * counter, like the database backend's sequence) and a {@link FencedOutboxStore} under which an
 * external lease manager can be layered.
 *
 * <p>Thread-safe: every operation is atomic under one lock, so each read-check-write is what a SQL
 * store does in one statement. "Now" is the injected {@link Clock}. Eligible rows are taken oldest
 * id first.
 */
public final class InMemoryOutboxStore implements OutboxClaimStore, FencedOutboxStore {

    private final Clock clock;
    private final NavigableMap<Long, OutboxEntry> rows = new TreeMap<>();
    private long lastId;
    private long lastToken;

    public InMemoryOutboxStore(Clock clock) {
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    @Override
    public synchronized OutboxEntry enqueue(OutboxMessage message) {
        boolean duplicate = rows.values().stream().anyMatch(e -> e.idempotencyKey().equals(message.idempotencyKey()));
        if (duplicate) {
            throw new IllegalArgumentException("an outbox entry with idempotency key " + message.idempotencyKey()
                    + " exists already");
        }
        OutboxEntry entry = OutboxEntry.builder()
                .id(++lastId)
                .idempotencyKey(message.idempotencyKey())
                .partitionKey(message.partitionKey().orElse(null))
                .type(message.type())
                .payload(message.payload())
                .headers(message.headers())
                .createdAt(clock.instant())
                .build();
        rows.put(entry.id(), entry);
        return entry;
    }

    @Override
    public List<OutboxEntry> findPending(int limit) {
        return select(ClaimSelection.PENDING, limit);
    }

    @Override
    public List<OutboxEntry> findRetryReady(int limit) {
        return select(ClaimSelection.RETRY_READY, limit);
    }

    /** The reference order: {@link CandidateQuery#preferenceOrder} over the oldest eligible ids. */
    @Override
    public List<Long> findClaimCandidateIds(CandidateQuery query) {
        List<Long> window = select(query.selection(), Math.toIntExact(query.stripedWindow())).stream()
                .map(OutboxEntry::id).toList();
        return query.preferenceOrder(window);
    }

    @Override
    public synchronized List<OutboxEntry> findEligible(ClaimSelection selection, Collection<Long> ids) {
        Instant now = clock.instant();
        return new java.util.TreeSet<>(ids).stream().map(rows::get)
                .filter(e -> e != null && e.isEligibleAt(selection, now)).toList();
    }

    private synchronized List<OutboxEntry> select(ClaimSelection selection, int limit) {
        Instant now = clock.instant();
        return matching(e -> e.isEligibleAt(selection, now), limit);
    }

    private List<OutboxEntry> matching(Predicate<OutboxEntry> predicate, int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be positive, was " + limit);
        }
        List<OutboxEntry> found = new ArrayList<>();
        for (OutboxEntry entry : rows.values()) {
            if (found.size() == limit) {
                break;
            }
            if (predicate.test(entry)) {
                found.add(entry);
            }
        }
        return found;
    }

    @Override
    public synchronized OutboxEntry save(OutboxEntry entry) {
        OutboxEntry current = rows.get(entry.id());
        if (current == null) {
            throw new NoSuchElementException("no outbox entry with id " + entry.id());
        }
        OutboxEntry saved = Completion.apply(new Completion.Saved(entry), current).toBuilder()
                .claimOwner(current.claimOwner().orElse(null))
                .claimToken(current.claimToken().isPresent() ? current.claimToken().getAsLong() : null)
                .claimedAt(current.claimedAt().orElse(null))
                .claimExpiresAt(current.claimExpiresAt().orElse(null))
                .build();
        rows.put(saved.id(), saved);
        return saved;
    }

    @Override
    public synchronized Optional<OutboxEntry> find(long id) {
        return Optional.ofNullable(rows.get(id));
    }

    @Override
    public synchronized List<OutboxClaim> claim(ClaimSelection selection, ClaimRequest request) {
        Instant now = clock.instant();
        Instant expiresAt = now.plus(request.leaseDuration());
        List<OutboxClaim> claims = new ArrayList<>();
        for (OutboxEntry entry : matching(e -> e.isEligibleAt(selection, now), request.batchSize())) {
            long token = Math.max(lastToken, entry.fenceHighWater()) + 1;
            lastToken = token;
            claims.add(writeClaim(entry, request.owner(), token, now, expiresAt));
        }
        return claims;
    }

    private OutboxClaim writeClaim(OutboxEntry entry, String owner, long token, Instant at, Instant expiresAt) {
        int attempt = entry.claimAttemptCount() + 1;
        OutboxEntry claimed = entry.toBuilder().claim(owner, token, at, expiresAt, attempt).build();
        rows.put(claimed.id(), claimed);
        return new OutboxClaim(claimed, owner, token, at, expiresAt, attempt);
    }

    @Override
    public synchronized ClaimRecording recordClaims(ClaimSelection selection, List<ClaimGrant> grants) {
        Instant now = clock.instant();
        List<OutboxClaim> recorded = new ArrayList<>();
        List<ClaimRecording.Refusal> refused = new ArrayList<>();
        for (ClaimGrant grant : grants) {
            OutboxEntry entry = rows.get(grant.entryId());
            if (entry == null) {
                refused.add(new ClaimRecording.Refusal(grant, ClaimRecording.Reason.MISSING, 0));
            } else if (grant.token() <= entry.fenceHighWater()) {
                refused.add(new ClaimRecording.Refusal(grant, ClaimRecording.Reason.FENCE_NOT_ABOVE_HIGH_WATER,
                        entry.fenceHighWater()));
            } else if (!entry.isEligibleAt(selection, now)) {
                refused.add(new ClaimRecording.Refusal(grant, ClaimRecording.Reason.NOT_ELIGIBLE, entry.fenceHighWater()));
            } else {
                recorded.add(writeClaim(entry, grant.owner(), grant.token(), grant.claimedAt(), grant.expiresAt()));
            }
        }
        return new ClaimRecording(recorded, refused);
    }

    @Override
    public synchronized CompletionOutcome complete(OutboxClaim claim, Completion completion) {
        OutboxEntry current = rows.get(claim.entryId());
        if (current == null) {
            return new CompletionOutcome.Missing(claim.token(), claim.entryId());
        }
        Optional<CompletionOutcome> refusal = CompletionOutcome.refusalFor(current, claim.token());
        if (refusal.isPresent()) {
            return refusal.get();
        }
        OutboxEntry completed = Completion.apply(completion, current);
        rows.put(completed.id(), completed);
        return new CompletionOutcome.Completed(completed);
    }

    @Override
    public synchronized List<CompletionOutcome> completeAll(List<ClaimCompletion> completions) {
        List<CompletionOutcome> outcomes = new ArrayList<>(completions.size());
        for (ClaimCompletion c : completions) {
            outcomes.add(complete(c.claim(), c.completion()));
        }
        return outcomes;
    }

    @Override
    public synchronized List<CompletionOutcome> completeAllFenced(List<ClaimCompletion> completions) {
        List<CompletionOutcome> outcomes = new ArrayList<>(completions.size());
        for (ClaimCompletion c : completions) {
            OutboxClaim claim = c.claim();
            OutboxEntry current = rows.get(claim.entryId());
            if (current == null) {
                outcomes.add(new CompletionOutcome.Missing(claim.token(), claim.entryId()));
                continue;
            }
            Optional<CompletionOutcome> refusal = CompletionOutcome.fencedRefusalFor(current, claim.token());
            if (refusal.isPresent()) {
                outcomes.add(refusal.get());
                continue;
            }
            if (current.claimExpiresAt().filter(at -> at.isAfter(clock.instant())).isPresent()) {
                outcomes.add(new CompletionOutcome.StaleToken(claim.token(), current)); // another holder's live claim
                continue;
            }
            OutboxEntry completed = Completion.apply(c.completion(), current).toBuilder()
                    .fenceHighWater(claim.token()).claimAttemptCount(current.claimAttemptCount() + 1).build();
            rows.put(completed.id(), completed);
            outcomes.add(new CompletionOutcome.Completed(completed));
        }
        return outcomes;
    }

    @Override
    public synchronized List<OutboxClaim> renewClaims(List<OutboxClaim> claims, Duration leaseDuration) {
        return extendClaims(claims, clock.instant().plus(leaseDuration));
    }

    @Override
    public synchronized List<OutboxClaim> extendClaims(List<OutboxClaim> claims, Instant expiresAt) {
        List<OutboxClaim> extended = new ArrayList<>();
        for (OutboxClaim claim : claims) {
            OutboxEntry current = rows.get(claim.entryId());
            if (current != null && current.claimToken().isPresent()
                    && current.claimToken().getAsLong() == claim.token() && !current.status().isTerminal()) {
                rows.put(current.id(), current.toBuilder().claimExpiresAt(expiresAt).build());
                extended.add(claim.withExpiresAt(expiresAt));
            }
        }
        return extended;
    }

    @Override
    public synchronized long highestFenceHighWater() {
        return rows.values().stream().mapToLong(OutboxEntry::fenceHighWater).max().orElse(0);
    }

    /** Every row, oldest first: for tests and the demo's summary. */
    public synchronized List<OutboxEntry> all() {
        return List.copyOf(rows.values());
    }
}
