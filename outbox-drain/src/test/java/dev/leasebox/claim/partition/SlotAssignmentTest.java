package dev.leasebox.claim.partition;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SlotAssignmentTest {

    @Test
    void everySlotHasExactlyOneOwnerAndSharesDifferByAtMostOne() {
        for (int n = 1; n <= 9; n++) {
            List<String> members = members(n);
            String[] owners = SlotAssignment.assign(members, 256);
            Map<String, Integer> counts = new HashMap<>();
            for (String o : owners) {
                assertThat(o).isIn(members);
                counts.merge(o, 1, Integer::sum);
            }
            assertThat(counts).hasSize(n);
            int min = counts.values().stream().mapToInt(Integer::intValue).min().orElseThrow();
            int max = counts.values().stream().mapToInt(Integer::intValue).max().orElseThrow();
            assertThat(max - min).as("%d members", n).isLessThanOrEqualTo(1);
        }
    }

    @Test
    void everyMemberComputesTheSameAssignmentWhateverTheOrderItSeesMembersIn() {
        List<String> members = members(5);
        List<String> reversed = new ArrayList<>(members);
        java.util.Collections.reverse(reversed);
        assertThat(SlotAssignment.assign(reversed, 256)).containsExactly(SlotAssignment.assign(members, 256));
    }

    @Test
    void aJoiningMemberTakesRoughlyItsShareAndFewOtherSlotsMove() {
        String[] before = SlotAssignment.assign(members(4), 256);
        String[] after = SlotAssignment.assign(members(5), 256);
        int moved = 0;
        for (int s = 0; s < 256; s++) {
            if (!before[s].equals(after[s])) {
                moved++;
            }
        }
        // the newcomer's share is 51; a modulo assignment would move about 205 slots
        assertThat(moved).isBetween(51, 100);
    }

    @Test
    void moreMembersThanSlotsLeavesSomeMembersIdle() {
        assertThat(SlotAssignment.assign(members(5), 3)).doesNotContainNull().hasSize(3);
        assertThat(SlotAssignment.assign(List.of(), 3)).containsOnlyNulls();
        assertThatThrownBy(() -> SlotAssignment.assign(members(1), 0)).hasMessageContaining("slotCount");
    }

    private static List<String> members(int n) {
        List<String> m = new ArrayList<>();
        for (int i = 1; i <= n; i++) {
            m.add("worker-" + i);
        }
        return m;
    }
}
