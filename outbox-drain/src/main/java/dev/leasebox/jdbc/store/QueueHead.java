package dev.leasebox.jdbc.store;

import dev.leasebox.outbox.ClaimSelection;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;

/**
 * Where a store's queue reads start: the lowest id its last read of the claim queue found, so that the
 * next read skips the entries of rows finalized since the last vacuum instead of walking them again.
 *
 * <p>Why: a finalized row leaves the claim-queue index only when vacuum removes its entry. Until then
 * every read of the queue in id order (the {@code database} backend's claim, the candidate read of the
 * external backends) steps over the entries of every row finalized before it, which on a busy outbox
 * between two autovacuum runs are hundreds of thousands: a read that costs 50 buffer visits on a clean
 * index costs 1,500 on one whose head is 300,000 rows deep in finalized entries
 * ({@code QueueHeadIT}). A read that starts at {@code id >= from} descends the index straight to the
 * live head.
 *
 * <p>The head only hints: every claim still checks the row itself, so a wrong hint can delay a row,
 * never claim one twice. Rows below the hint can become eligible again: a retry whose time came, a
 * claim that lapsed, a row whose enqueueing transaction committed after rows with higher ids were
 * claimed. So a read starts from the beginning again (a <em>full</em> read) when {@link #rescan} has
 * passed since the last full read, and right after a read from the hint found nothing; such a row
 * waits at most that long beyond its time. A rescan of {@link Duration#ZERO} makes every read full.
 *
 * <p>Kept per {@link ClaimSelection} (their heads differ) and shared by the store's claim loops: a hint
 * one loop sets serves the others; concurrent updates may leave any one of them, each a valid hint.
 */
public final class QueueHead {

    /** The {@code from} of a full read: below every id. */
    public static final long FULL = Long.MIN_VALUE;

    private final Clock clock;
    private final Duration rescan;
    private final Map<ClaimSelection, Head> heads = new EnumMap<>(ClaimSelection.class);

    QueueHead(Clock clock, Duration rescan) {
        this.clock = Objects.requireNonNull(clock, "clock");
        this.rescan = Objects.requireNonNull(rescan, "rescan");
        for (ClaimSelection selection : ClaimSelection.values()) {
            heads.put(selection, new Head());
        }
    }

    /** Where the next read of {@code selection}'s queue starts: {@link #FULL}, or the last head found. */
    long from(ClaimSelection selection) {
        Head head = heads.get(selection);
        synchronized (head) {
            if (head.id == FULL || rescan.isZero()) {
                return FULL;
            }
            Instant now = clock.instant();
            if (head.lastFull == null || !now.isBefore(head.lastFull.plus(rescan))) {
                return FULL;
            }
            return head.id;
        }
    }

    /**
     * What a read that started at {@code from} found: {@code lowestId}, the lowest id it returned, or
     * null when it returned none. An empty read from a hint makes the next read full; an empty full read
     * leaves no hint.
     */
    void found(ClaimSelection selection, long from, Long lowestId) {
        Head head = heads.get(selection);
        synchronized (head) {
            if (from == FULL) {
                head.lastFull = clock.instant();
            }
            head.id = lowestId == null ? FULL : lowestId;
        }
    }

    private static final class Head {
        long id = FULL;
        Instant lastFull;
    }
}
