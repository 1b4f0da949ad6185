package dev.leasebox.console;

import dev.leasebox.jdbc.OutboxTableStatus;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class ClaimTrackerTest {

    private static OutboxTableStatus.OpenClaim claim(long id, long token, int attempts, boolean live) {
        return new OutboxTableStatus.OpenClaim(id, token, attempts, live);
    }

    @Test
    void aClaimPastItsExpiryIsOneLossHoweverOftenItIsSeen() {
        ClaimTracker tracker = new ClaimTracker();
        assertThat(tracker.observe(List.of(claim(1, 10, 0, true), claim(2, 11, 0, false))))
                .isEqualTo(new ClaimTracker.Tally(1, 1, 1, 0));
        assertThat(tracker.observe(List.of(claim(1, 10, 0, false), claim(2, 11, 0, false))))
                .isEqualTo(new ClaimTracker.Tally(0, 2, 1, 0));
        assertThat(tracker.observe(List.of(claim(1, 10, 0, false), claim(2, 11, 0, false))).losses()).isZero();
    }

    @Test
    void aNewTokenWithoutAnAttemptIsAReclaimAndARetryIsNot() {
        ClaimTracker tracker = new ClaimTracker();
        tracker.observe(List.of(claim(1, 10, 0, false), claim(2, 11, 0, true)));
        // row 1: the lost claim's row taken by a new claim; row 2: completed as a retry, then claimed again
        ClaimTracker.Tally next = tracker.observe(List.of(claim(1, 20, 0, true), claim(2, 21, 1, true)));
        assertThat(next.reclaims()).isEqualTo(1);
        assertThat(next.live()).isEqualTo(2);
    }

    @Test
    void aRowClaimedAgainAfterAGapIsNotComparedWithItsOldClaim() {
        ClaimTracker tracker = new ClaimTracker();
        tracker.observe(List.of(claim(1, 10, 0, true)));
        tracker.observe(List.of());
        assertThat(tracker.observe(List.of(claim(1, 30, 0, true))).reclaims()).isZero();
    }
}
