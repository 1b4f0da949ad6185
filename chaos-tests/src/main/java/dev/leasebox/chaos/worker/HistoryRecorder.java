package dev.leasebox.chaos.worker;

import dev.leasebox.chaos.history.HistoryEvent;
import dev.leasebox.chaos.history.JsonLinesFile;
import dev.leasebox.drain.DrainListener;
import dev.leasebox.outbox.Completion;
import dev.leasebox.outbox.CompletionOutcome;
import dev.leasebox.outbox.OutboxClaim;
import dev.leasebox.provider.Envelope;
import dev.leasebox.provider.ProviderOutcome;

import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.NavigableSet;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListSet;

/**
 * Writes a worker's history, one JSON line per event (Jepsen's discipline: invocations before they
 * happen, outcomes after, unknown outcomes as {@code info}). Emission and loss events come through
 * the {@link DrainListener} hooks; claims, renewals and completions from {@link RecordingClaimStore},
 * which sees the exact tokens and outcomes. {@code local} is the JVM's wall clock ({@code Clock.systemUTC()}),
 * which libfaketime steps, not the drain's monotonic clock, so a clock step shows in the history. Each line reaches the operating system before the call
 * returns, so a SIGKILL loses nothing already recorded.
 */
final class HistoryRecorder implements DrainListener {

    private final JsonLinesFile file;
    private final String owner;
    private final CommonClock common;
    private final Clock local;
    /**
     * The fences this worker holds per entry, oldest first. The drain names lost and abandoned claims by entry
     * only; an entry can be held twice at once (a loop reclaimed it after the lease of another loop's batch
     * lapsed), and the older grant is the one whose loss and abandonment come first, so they are recorded
     * under the oldest fence held.
     */
    private final Map<Long, NavigableSet<Long>> fencesHeld = new ConcurrentHashMap<>();

    HistoryRecorder(JsonLinesFile file, String owner, CommonClock common, Clock local) {
        this.file = file;
        this.owner = owner;
        this.common = common;
        this.local = local;
    }

    void record(String kind, long entry, long fence, long claimedAt, long expiresAt, String detail) {
        record(kind, entry, fence, claimedAt, expiresAt, detail, 0);
    }

    private void record(String kind, long entry, long fence, long claimedAt, long expiresAt, String detail, long askedAt) {
        record(kind, entry, fence, claimedAt, expiresAt, detail, askedAt, 0);
    }

    private void record(String kind, long entry, long fence, long claimedAt, long expiresAt, String detail, long askedAt,
                        long leaseSince) {
        file.append(new HistoryEvent(common.millis(), local.millis(), owner, kind, entry, fence, claimedAt, expiresAt,
                detail, askedAt, leaseSince).toJson());
    }

    /** Now on the run's common clock: taken before a claim call, as the earliest its grants can have happened. */
    long commonMillis() {
        return common.millis();
    }

    void started(String description) {
        record(HistoryEvent.START, -1, 0, 0, 0, description);
    }

    void claimRecorded(OutboxClaim claim, long askedAt) {
        claimRecorded(claim, askedAt, 0);
    }

    /**
     * A claim granted under a lease shared by a group of rows: {@code leaseSince} is when that lease was granted or
     * last renewed, on the common clock (see {@link HistoryEvent#leaseSince()}).
     */
    void claimRecorded(OutboxClaim claim, long askedAt, long leaseSince) {
        fencesHeld.computeIfAbsent(claim.entryId(), id -> new ConcurrentSkipListSet<>()).add(claim.token());
        record(HistoryEvent.CLAIM, claim.entryId(), claim.token(), claim.claimedAt().toEpochMilli(),
                claim.expiresAt().toEpochMilli(), CLAIM_ATTEMPT + claim.claimAttemptCount(), askedAt, leaseSince);
    }

    /** The claim event's detail: the row's claim attempt count, which the database orders claims by. */
    static final String CLAIM_ATTEMPT = HistoryEvent.CLAIM_ATTEMPT_PREFIX;

    void renewInvoked(OutboxClaim claim, long mostExpiresAt) {
        record(HistoryEvent.RENEW_INVOKE, claim.entryId(), claim.token(), 0, mostExpiresAt, "");
    }

    void renewed(OutboxClaim claim) {
        record(HistoryEvent.RENEW, claim.entryId(), claim.token(), 0, claim.expiresAt().toEpochMilli(), "");
    }

    void completeInvoked(OutboxClaim claim, Completion completion) {
        record(HistoryEvent.COMPLETE_INVOKE, claim.entryId(), claim.token(), 0, 0, kindOf(completion));
    }

    void completionOutcome(OutboxClaim claim, Completion completion, CompletionOutcome outcome) {
        release(claim.entryId(), claim.token());
        if (outcome.isCompleted()) {
            record(HistoryEvent.COMPLETED, claim.entryId(), claim.token(), 0, 0, kindOf(completion));
        } else {
            record(HistoryEvent.REFUSED, claim.entryId(), claim.token(), 0, 0, outcome.getClass().getSimpleName());
        }
    }

    @Override
    public void emitting(Envelope envelope) {
        record(HistoryEvent.INVOKE, envelope.entryId(), envelope.fence().orElse(0), 0, 0, "attempt " + envelope.attempt());
    }

    @Override
    public void emitted(Envelope envelope, ProviderOutcome outcome, Duration latency) {
        String kind;
        String detail;
        if (outcome instanceof ProviderOutcome.Delivered) {
            kind = HistoryEvent.OK;
            detail = "";
        } else if (outcome instanceof ProviderOutcome.RetryableError r) {
            kind = r.message().startsWith(FaultyProvider.TIMEOUT_PREFIX) ? HistoryEvent.INFO : HistoryEvent.FAIL;
            detail = r.message();
        } else if (outcome instanceof ProviderOutcome.PermanentError p) {
            kind = HistoryEvent.FAIL;
            detail = p.message();
        } else {
            kind = HistoryEvent.FAIL;
            detail = outcome.toString();
        }
        record(kind, envelope.entryId(), envelope.fence().orElse(0), 0, 0, detail);
    }

    @Override
    public void claimsLost(Set<Long> entryIds, String cause) {
        for (Long id : entryIds) {
            record(HistoryEvent.LOST, id, oldestHeld(id), 0, 0, cause);
        }
    }

    @Override
    public void claimsAbandoned(Set<Long> entryIds, String reason) {
        for (Long id : entryIds) {
            long fence = oldestHeld(id);
            record(HistoryEvent.ABANDONED, id, fence, 0, 0, reason);
            release(id, fence); // nothing more is written under an abandoned claim
        }
    }

    /** The oldest fence this worker holds for {@code entry}, or 0 when it holds none. */
    long oldestHeld(long entry) {
        NavigableSet<Long> fences = fencesHeld.get(entry);
        Long oldest = fences == null ? null : fences.ceiling(Long.MIN_VALUE);
        return oldest == null ? 0L : oldest;
    }

    private void release(long entry, long fence) {
        fencesHeld.computeIfPresent(entry, (id, fences) -> {
            fences.remove(fence);
            return fences.isEmpty() ? null : fences;
        });
    }

    static String kindOf(Completion completion) {
        if (completion instanceof Completion.Delivered) {
            return "DELIVERED";
        }
        if (completion instanceof Completion.Failed f) {
            return f.nextRetryAt().isPresent() ? "RETRYABLE_FAILURE" : "FAILED";
        }
        if (completion instanceof Completion.DeadLettered) {
            return "DEAD_LETTERED";
        }
        if (completion instanceof Completion.Saved s) {
            return "SAVED_" + s.entry().status();
        }
        return "RELEASED";
    }
}
