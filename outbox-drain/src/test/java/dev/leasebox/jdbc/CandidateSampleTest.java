package dev.leasebox.jdbc;

import dev.leasebox.outbox.OutboxEntry;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/** The sample of a spread window: lapsed claims first for up to three quarters of the batch, the rest uniform. */
class CandidateSampleTest {

    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    private static OutboxEntry row(long id, boolean lapsed) {
        OutboxEntry.Builder b = OutboxEntry.builder().id(id).idempotencyKey("k" + id).type("t").createdAt(T0);
        if (lapsed) {
            b.claim("dead", 100 + id, T0, T0.plusSeconds(5), 1);
        }
        return b.build();
    }

    /** {@code size} rows with ids 1..size; those in {@code lapsed} carry a claim. */
    private static List<OutboxEntry> window(int size, Set<Long> lapsed) {
        List<OutboxEntry> rows = new ArrayList<>();
        for (long id = 1; id <= size; id++) {
            rows.add(row(id, lapsed.contains(id)));
        }
        return rows;
    }

    private static Set<Long> ids(List<OutboxEntry> rows) {
        return rows.stream().map(OutboxEntry::id).collect(Collectors.toSet());
    }

    @Test
    void aWindowNoLargerThanTheLimitIsReturnedWhole() {
        List<OutboxEntry> rows = window(4, Set.of(2L));
        assertThat(CandidateSample.choose(rows, 4, new SplittableRandom(1))).isEqualTo(rows);
        assertThat(CandidateSample.choose(rows, 9, new SplittableRandom(1))).isEqualTo(rows);
    }

    @Test
    void lapsedClaimsUpToThreeQuartersOfTheLimitAreAlwaysChosenAndTheSampleIsDistinctAndSorted() {
        SplittableRandom random = new SplittableRandom(7);
        Set<Long> lapsed = Set.of(3L, 28L, 40L, 33L, 17L, 9L, 21L);
        Set<Long> others = new java.util.HashSet<>();
        for (int round = 0; round < 200; round++) {
            List<OutboxEntry> chosen = CandidateSample.choose(window(40, lapsed), 10, random);
            assertThat(chosen).hasSize(10).isSortedAccordingTo(Comparator.comparingLong(OutboxEntry::id));
            assertThat(ids(chosen)).hasSize(10).containsAll(lapsed);
            chosen.stream().map(OutboxEntry::id).filter(id -> !lapsed.contains(id)).forEach(others::add);
        }
        assertThat(others).as("the other rows are drawn from the whole rest of the window").hasSize(33);
    }

    @Test
    void moreLapsedClaimsThanTheQuotaFillItAndTheRestIsDrawnFromEverything() {
        SplittableRandom random = new SplittableRandom(11);
        Set<Long> lapsed = new java.util.HashSet<>();
        for (long id = 1; id <= 20; id++) {
            lapsed.add(id);
        }
        Set<Long> lapsedChosen = new java.util.HashSet<>();
        int lapsedTotal = 0;
        for (int round = 0; round < 400; round++) {
            List<OutboxEntry> chosen = CandidateSample.choose(window(40, lapsed), 10, random);
            long count = chosen.stream().filter(e -> lapsed.contains(e.id())).count();
            assertThat(count).as("at least the quota of 7 or 8 (7.5 on average) is lapsed claims").isGreaterThanOrEqualTo(7);
            lapsedTotal += (int) count;
            chosen.stream().map(OutboxEntry::id).filter(lapsed::contains).forEach(lapsedChosen::add);
        }
        assertThat(lapsedChosen).as("which lapsed claims are random, so racing workers ask for different ones").hasSize(20);
        // quota 7: + 3 drawn from 13 lapsed and 20 unclaimed, 8.18 expected; quota 8: + 2 from 12 and 20, 8.75
        assertThat(lapsedTotal / 400.0).isBetween(8.3, 8.65);
    }

    @Test
    void theQuotaIsRoundedAtRandomSoABatchOfOneIsNotAlwaysALapsedClaim() {
        SplittableRandom random = new SplittableRandom(3);
        Set<Long> lapsed = Set.of(1L, 2L);
        int lapsedChosen = 0;
        for (int round = 0; round < 1000; round++) {
            List<OutboxEntry> chosen = CandidateSample.choose(window(8, lapsed), 1, random);
            assertThat(chosen).hasSize(1);
            if (lapsed.contains(chosen.get(0).id())) {
                lapsedChosen++;
            }
        }
        // three times in four the quota is 1, else a uniform draw of 1 from 8 (2 lapsed): 0.75 + 0.25 x 0.25 = 81.25 %
        assertThat(lapsedChosen).isBetween(770, 855);
    }
}
