package dev.leasebox.console;

import dev.leasebox.jdbc.OutboxTableStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * What the console read from the outbox table at {@code observedAt}, and what it made of the change since
 * the sample before.
 *
 * @param counts              entries per status (every status present, 0 when none)
 * @param oldestPending       when the oldest entry still waiting (pending, deferred, retrying) was created
 * @param owners              recorded claims by owner, live and past expiry
 * @param slots               slots by holder (partition leases); empty when the table has no slot table
 * @param deadLetters         the most recent dead letters, newest first
 * @param deliveredPerSecond  DELIVERED count growth since the previous sample, per second (0 on the first)
 * @param deadLetteredPerSecond DEAD_LETTERED count growth since the previous sample, per second
 * @param claims              what the open recorded claims showed: live, expired, losses and reclaims seen
 * @param takenOver           the count of claims taken over: the workers' own when the console was given it
 *                            ({@link ConsoleSampler#takeoversFrom}), else the table's (empty without V8)
 * @param takenOverInTable    whether {@code takenOver} was read from the table
 */
record Sample(Instant observedAt, Map<String, Long> counts, Optional<Instant> oldestPending,
              List<OutboxTableStatus.OwnerClaims> owners, Optional<List<OutboxTableStatus.SlotHolder>> slots,
              List<OutboxTableStatus.DeadLetter> deadLetters, double deliveredPerSecond, double deadLetteredPerSecond,
              ClaimTracker.Tally claims, OptionalLong takenOver, boolean takenOverInTable) {

    /** The statuses still to deliver: PENDING, DEFERRED and RETRYABLE_FAILURE. */
    static final List<String> WAITING = List.of("PENDING", "DEFERRED", "RETRYABLE_FAILURE");

    long count(String status) {
        return counts.getOrDefault(status, 0L);
    }

    /** Entries still to deliver, whatever their due time. */
    long backlog() {
        return WAITING.stream().mapToLong(this::count).sum();
    }

    Optional<Duration> oldestPendingAge() {
        return oldestPending.map(t -> t.isAfter(observedAt) ? Duration.ZERO : Duration.between(t, observedAt));
    }

    /** Partition mode: a slot of the table was ever granted to a worker. */
    boolean partitionMode() {
        return slots.isPresent() && slots.get().stream().anyMatch(h -> h.holder() != null);
    }
}
