package dev.leasebox.claim.partition;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Who should hold which slot, given the live members: rendezvous (highest-random-weight) hashing with
 * bounded loads. Every member computes the same assignment from the same member set, with no
 * coordination; each gets {@code floor} or {@code ceil} of {@code slotCount / members} slots; when a
 * member joins or leaves, only about {@code slotCount / members} slots change hands.
 */
public final class SlotAssignment {

    private SlotAssignment() {
    }

    /** The owner of every slot, indexed by slot. Members are deduplicated; an empty set assigns nothing. */
    public static String[] assign(List<String> members, int slotCount) {
        if (slotCount < 1) {
            throw new IllegalArgumentException("slotCount must be positive, was " + slotCount);
        }
        String[] owners = new String[slotCount];
        List<String> sorted = new ArrayList<>(new TreeSet<>(members));
        int n = sorted.size();
        if (n == 0) {
            return owners;
        }
        int base = slotCount / n;
        int extra = slotCount % n;
        // The first `extra` members (by their own hash order, not name order) may hold one more.
        List<String> byHash = new ArrayList<>(sorted);
        byHash.sort(Comparator.comparingLong(SlotAssignment::memberHash).thenComparing(Comparator.naturalOrder()));
        Map<String, Integer> capacity = new HashMap<>();
        for (int i = 0; i < n; i++) {
            capacity.put(byHash.get(i), base + (i < extra ? 1 : 0));
        }
        Integer[] order = new Integer[n];
        long[] weights = new long[n];
        for (int slot = 0; slot < slotCount; slot++) {
            for (int m = 0; m < n; m++) {
                order[m] = m;
                weights[m] = weight(slot, sorted.get(m));
            }
            Arrays.sort(order, (a, b) -> Long.compareUnsigned(weights[b], weights[a]));
            for (int m : order) {
                String member = sorted.get(m);
                int left = capacity.get(member);
                if (left > 0) {
                    capacity.put(member, left - 1);
                    owners[slot] = member;
                    break;
                }
            }
        }
        return owners;
    }

    /** The slots {@code member} should hold. */
    public static Set<Integer> slotsOf(String member, List<String> members, int slotCount) {
        String[] owners = assign(members, slotCount);
        Set<Integer> mine = new TreeSet<>();
        for (int slot = 0; slot < owners.length; slot++) {
            if (member.equals(owners[slot])) {
                mine.add(slot);
            }
        }
        return mine;
    }

    private static long memberHash(String member) {
        return mix(fnv(member.getBytes(StandardCharsets.UTF_8)));
    }

    private static long weight(int slot, String member) {
        return mix(fnv(member.getBytes(StandardCharsets.UTF_8)) ^ (0x9E3779B97F4A7C15L * (slot + 1)));
    }

    private static long fnv(byte[] bytes) {
        long h = 0xcbf29ce484222325L;
        for (byte b : bytes) {
            h ^= (b & 0xff);
            h *= 0x100000001b3L;
        }
        return h;
    }

    /** SplitMix64's finalizer: spreads nearby inputs over the whole range. */
    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }
}
