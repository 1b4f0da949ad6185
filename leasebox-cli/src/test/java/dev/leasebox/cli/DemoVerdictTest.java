package dev.leasebox.cli;

import dev.leasebox.jdbc.OutboxTableStatus;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** The demo's verdict on hand-built evidence: one input per invariant that breaks it. */
class DemoVerdictTest {

    private static Map<Long, OutboxTableStatus.FenceMark> delivered(long... idAndMark) {
        Map<Long, OutboxTableStatus.FenceMark> marks = new LinkedHashMap<>();
        for (int i = 0; i < idAndMark.length; i += 2) {
            marks.put(idAndMark[i], new OutboxTableStatus.FenceMark("DELIVERED", idAndMark[i + 1]));
        }
        return marks;
    }

    @Test
    void aCleanRunHoldsEveryInvariant() {
        DemoLedger ledger = new DemoLedger();
        ledger.emitted(1, 10, "w1");
        ledger.emitted(2, 11, "w2");
        ledger.emitted(2, 20, "w1"); // w2 was killed holding entry 2
        assertThat(DemoVerdict.check(ledger, delivered(1, 10, 2, 20), 2, "w2", Set.of(2L), 0)).isEmpty();
    }

    @Test
    void anEmissionWithoutAFenceBreaksClaimBeforeEmit() {
        DemoLedger ledger = new DemoLedger();
        ledger.emitted(1, 0, "w1");
        assertThat(DemoVerdict.check(ledger, delivered(1, 0), 1, null, Set.of(), 0))
                .anyMatch(f -> f.startsWith("claim before emit: entry 1"));
    }

    @Test
    void aLowerFenceAfterAHigherOneBreaksFencesOnlyGrow() {
        DemoLedger ledger = new DemoLedger();
        ledger.emitted(1, 20, "w1");
        ledger.lost("w1", List.of(1L));
        ledger.emitted(1, 15, "w2");
        assertThat(DemoVerdict.check(ledger, delivered(1, 20), 1, null, Set.of(), 0))
                .anyMatch(f -> f.startsWith("fences only grow: entry 1"));
    }

    @Test
    void anOrphanEmittedByTwoLiveWorkersIsAnUnexplainedDuplicate() {
        DemoLedger ledger = new DemoLedger();
        ledger.emitted(7, 10, "w2"); // the victim
        ledger.emitted(7, 20, "w1");
        ledger.emitted(7, 30, "w3"); // w1 was alive and never lost it
        List<String> failures = DemoVerdict.check(ledger, delivered(7, 30), 1, "w2", Set.of(7L), 0);
        assertThat(failures).singleElement().asString()
                .startsWith("duplicates only across an expiry: entry 7 was emitted again by w3");
    }

    @Test
    void aDuplicateIsExplainedByALossItsWorkerReported() {
        DemoLedger ledger = new DemoLedger();
        ledger.emitted(3, 10, "w1");
        ledger.lost("w1", List.of(3L));
        ledger.emitted(3, 20, "w2");
        assertThat(DemoVerdict.check(ledger, delivered(3, 20), 1, null, Set.of(), 0)).isEmpty();
    }

    @Test
    void aDeliveredRowWhoseMarkIsNotItsNewestEmissionIsAStaleFinalization() {
        DemoLedger ledger = new DemoLedger();
        ledger.emitted(4, 10, "w1");
        ledger.lost("w1", List.of(4L));
        ledger.emitted(4, 20, "w2");
        assertThat(DemoVerdict.check(ledger, delivered(4, 10), 1, null, Set.of(), 0))
                .anyMatch(f -> f.startsWith("no stale finalization: entry 4 ended DELIVERED with fence high-water mark 10"));
    }

    @Test
    void missingEntriesAndClaimTokensOnTerminalRowsAreReported() {
        DemoLedger ledger = new DemoLedger();
        ledger.emitted(1, 10, "w1");
        Map<Long, OutboxTableStatus.FenceMark> marks = delivered(1, 10);
        marks.put(2L, new OutboxTableStatus.FenceMark("PENDING", 0));
        assertThat(DemoVerdict.check(ledger, marks, 2, null, Set.of(), 3))
                .contains("nothing lost: 1 of 2 entries DELIVERED")
                .contains("no stale finalization: 3 terminal rows still carry a claim token");
    }
}
