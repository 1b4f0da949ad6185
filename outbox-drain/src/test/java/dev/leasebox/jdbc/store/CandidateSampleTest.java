package dev.leasebox.jdbc.store;

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
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The sample of a spread window: lapsed claims first for up to three quarters of the batch, the rest uniform. */
class CandidateSampleTest {

    /** {@code size} candidates with ids 1..size; those in {@code lapsed} carry a lapsed claim. */
    private static List<CandidateSample.Candidate> window(int size, Set<Long> lapsed) {
        List<CandidateSample.Candidate> rows = new ArrayList<>();
        for (long id = 1; id <= size; id++) {
            rows.add(new CandidateSample.Candidate(id, lapsed.contains(id), true));
        }
        return rows;
    }

    @Test
    void aWindowNoLargerThanTheLimitIsReturnedWhole() {
        List<CandidateSample.Candidate> rows = window(4, Set.of(2L));
        assertThat(CandidateSample.chooseIds(rows, 4, new SplittableRandom(1))).containsExactly(1L, 2L, 3L, 4L);
        assertThat(CandidateSample.chooseIds(rows, 9, new SplittableRandom(1))).containsExactly(1L, 2L, 3L, 4L);
    }

    @Test
    void lapsedClaimsUpToThreeQuartersOfTheLimitAreAlwaysChosenAndTheSampleIsDistinct() {
        SplittableRandom random = new SplittableRandom(7);
        Set<Long> lapsed = Set.of(3L, 28L, 40L, 33L, 17L, 9L, 21L);
        Set<Long> others = new java.util.HashSet<>();
        for (int round = 0; round < 200; round++) {
            List<Long> chosen = CandidateSample.chooseIds(window(40, lapsed), 10, random);
            assertThat(chosen).hasSize(10).doesNotHaveDuplicates();
            assertThat(chosen).containsAll(lapsed);
            chosen.stream().filter(id -> !lapsed.contains(id)).forEach(others::add);
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
            List<Long> chosen = CandidateSample.chooseIds(window(40, lapsed), 10, random);
            long count = chosen.stream().filter(lapsed::contains).count();
            assertThat(count).as("at least the quota of 7 or 8 (7.5 on average) is lapsed claims").isGreaterThanOrEqualTo(7);
            lapsedTotal += (int) count;
            chosen.stream().filter(lapsed::contains).forEach(lapsedChosen::add);
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
            List<Long> chosen = CandidateSample.chooseIds(window(8, lapsed), 1, random);
            assertThat(chosen).hasSize(1);
            if (lapsed.contains(chosen.get(0))) {
                lapsedChosen++;
            }
        }
        // three times in four the quota is 1, else a uniform draw of 1 from 8 (2 lapsed): 0.75 + 0.25 x 0.25 = 81.25 %
        assertThat(lapsedChosen).isBetween(770, 855);
    }

    /** A striped window of ids 1..size: own when id mod stripes is 0, lapsed when in {@code lapsed}. */
    private static List<CandidateSample.Candidate> stripedWindow(int size, int stripes, Set<Long> lapsed) {
        List<CandidateSample.Candidate> window = new ArrayList<>();
        for (long id = 1; id <= size; id++) {
            window.add(new CandidateSample.Candidate(id, lapsed.contains(id), id % stripes == 0));
        }
        return window;
    }

    @Test
    void aStripedSampleTakesTheOwnStripeOldestFirstThenTheRestAtRandom() {
        SplittableRandom random = new SplittableRandom(5);
        Set<Long> helped = new java.util.HashSet<>();
        for (int round = 0; round < 200; round++) {
            List<Long> chosen = CandidateSample.chooseStriped(stripedWindow(40, 4, Set.of()), 14, 1, random);
            assertThat(chosen).hasSize(14).doesNotHaveDuplicates();
            assertThat(chosen.subList(0, 10)).containsExactly(4L, 8L, 12L, 16L, 20L, 24L, 28L, 32L, 36L, 40L);
            assertThat(chosen.subList(10, 14)).noneMatch(id -> id % 4 == 0);
            helped.addAll(chosen.subList(10, 14));
        }
        assertThat(helped).as("the rows beyond the own stripe are drawn from all the others").hasSize(30);
        assertThat(CandidateSample.chooseStriped(stripedWindow(40, 4, Set.of()), 3, 1, random)).containsExactly(4L, 8L, 12L);
    }

    @Test
    void aStripedSampleStillTakesLapsedClaimsFirstWhateverTheirStripe() {
        SplittableRandom random = new SplittableRandom(9);
        Set<Long> lapsed = Set.of(5L, 7L, 13L);
        for (int round = 0; round < 100; round++) {
            List<Long> chosen = CandidateSample.chooseStriped(stripedWindow(40, 4, lapsed), 8, 1, random);
            assertThat(chosen).hasSize(8).doesNotHaveDuplicates();
            assertThat(chosen.subList(0, 3)).containsExactlyInAnyOrder(5L, 7L, 13L);
            assertThat(chosen.subList(3, 8)).containsExactly(4L, 8L, 12L, 16L, 20L);
        }
    }

    @Test
    void aStripedWindowSmallerThanTheLimitIsReturnedWholeOwnStripeFirst() {
        List<Long> chosen = CandidateSample.chooseStriped(stripedWindow(6, 3, Set.of()), 10, 1, new SplittableRandom(1));

        assertThat(chosen).hasSize(6);
        assertThat(chosen.subList(0, 2)).containsExactly(3L, 6L);
        assertThat(chosen.subList(2, 6)).containsExactlyInAnyOrder(1L, 2L, 4L, 5L);
    }

    @Test
    void withBlocksTheRestIsTakenABlockAtATimeOldestFirstInRandomBlockOrder() {
        // ids 1..95 in blocks of 8 (block = id / 8), 3 stripes of whole blocks; this worker's stripe is 0
        List<CandidateSample.Candidate> window = new ArrayList<>();
        for (long id = 1; id <= 95; id++) {
            window.add(new CandidateSample.Candidate(id, false, Math.floorMod(id / 8, 3) == 0));
        }
        SplittableRandom random = new SplittableRandom(11);
        Set<Long> firstHelpedBlocks = new java.util.HashSet<>();
        for (int round = 0; round < 200; round++) {
            List<Long> chosen = CandidateSample.chooseStriped(window, 51, 8, random);
            assertThat(chosen).hasSize(51).doesNotHaveDuplicates();
            // own stripe: blocks 0 (ids 1-7), 3 (24-31), 6 (48-55), 9 (72-79), oldest first: 7 + 8 + 8 + 8 = 31 rows
            assertThat(chosen.subList(0, 31)).allMatch(id -> Math.floorMod(id / 8, 3) == 0).isSorted();
            // then 20 rows of others: two whole blocks and the four oldest rows of a third, each block's rows in order
            List<Long> rest = chosen.subList(31, 51);
            assertThat(rest).noneMatch(id -> Math.floorMod(id / 8, 3) == 0);
            assertThat(rest.subList(0, 8)).allMatch(id -> id / 8 == rest.get(0) / 8).isSorted();
            assertThat(rest.subList(8, 16)).allMatch(id -> id / 8 == rest.get(8) / 8).isSorted();
            assertThat(rest.subList(16, 20)).allMatch(id -> id / 8 == rest.get(16) / 8).isSorted();
            assertThat(rest.get(16) % 8).as("a partly taken block gives its oldest rows").isZero();
            firstHelpedBlocks.add(rest.get(0) / 8);
        }
        assertThat(firstHelpedBlocks).as("the blocks helped first are drawn from all the other stripes' blocks")
                .containsExactlyInAnyOrder(1L, 2L, 4L, 5L, 7L, 8L, 10L, 11L);
        assertThatThrownBy(() -> CandidateSample.chooseStriped(window, 5, 0, random))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("block must be at least 1 row, was 0");
    }
}
