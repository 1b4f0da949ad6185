package dev.leasebox.jdbc.store;

import dev.leasebox.outbox.OutboxEntry;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.random.RandomGenerator;

/**
 * How {@link JdbcOutboxStore#findClaimCandidates} chooses a batch from the window of oldest eligible
 * rows when {@code candidateSpread > 1}.
 *
 * <p>Rows whose claim <em>lapsed</em> (an eligible row still carrying a claim expiry: its holder died or
 * lost it, since every completion clears the claim columns) are chosen first, for up to three quarters
 * of the batch; the rest is a uniform random sample of the remaining window. Without the preference an
 * orphan is one row among {@code limit × spread} for every worker, and waits several claim cycles after
 * its claim expired. Not the whole
 * batch, because a lapsed claim's lease may not be grantable yet (a Hazelcast lock stays with a dead
 * holder until its CP session expires): a batch made only of such rows would claim nothing, and the
 * claim loop would back off as if the outbox were idle. The lapsed rows taken are themselves a random
 * sample, so that workers racing for many orphans mostly ask for different ones.
 *
 * <p>Guarantees: the result has {@code min(limit, window size)} distinct rows of the window, sorted by
 * id ({@link #choose}), or for the ids-only path ({@link #chooseIds}) in the order a claim should
 * prefer them when the window is larger than the limit: the lapsed rows drawn first, then the rest,
 * each part in random order. The claim path asks the coordinator for more keys than it wants and takes
 * them in that order, so concurrent workers' first choices differ (a ZooKeeper multi of the first
 * keys then rarely meets another worker's node) and orphans still come first; it holds {@code min(lapsed rows, quota)} lapsed rows or more, where the quota is
 * {@code 3 × limit / 4} rounded down or up at random so that its mean is exactly three quarters (a
 * batch of one takes a lapsed row at least three times out of four); every lapsed row is in it when
 * there are at most {@code 3 × limit / 4} (rounded down) of them.
 */
public final class CandidateSample {

    private CandidateSample() {
    }

    /**
     * A candidate id of the ids-only window, whether its row's claim lapsed, and whether it is in the
     * claiming worker's stripe (the SQL read leaves it false; the store sets it from the stripe, and
     * without one every row is in it).
     */
    public record Candidate(long id, boolean lapsed, boolean own) {
    }

    /**
     * The same choice over an ids-only window: the chosen ids, ascending when the window is all of
     * them, else in preference order (lapsed first, each part random).
     */
    static List<Long> chooseIds(List<Candidate> window, int limit, RandomGenerator random) {
        return choose(window, limit, Candidate::lapsed, null, random).stream().map(Candidate::id).toList();
    }

    /** {@code order} null: a drawn sample keeps the order it was drawn in. */
    private static <T> List<T> choose(List<T> window, int limit, java.util.function.Predicate<T> lapsedClaim,
                                      Comparator<T> order, RandomGenerator random) {
        if (window.size() <= limit) {
            List<T> all = new ArrayList<>(window);
            if (order != null) {
                all.sort(order);
            }
            return all;
        }
        List<T> pool = new ArrayList<>(window);
        int lapsed = 0;
        for (int i = 0; i < pool.size(); i++) {
            if (lapsedClaim.test(pool.get(i))) {
                swap(pool, lapsed++, i);
            }
        }
        int quota = Math.min(lapsed, lapsedQuota(limit, random));
        // pool[0, lapsed) are the lapsed rows: draw the quota from them, then the rest from everything left
        for (int i = 0; i < quota; i++) {
            swap(pool, i, i + random.nextInt(lapsed - i));
        }
        for (int i = quota; i < limit; i++) {
            swap(pool, i, i + random.nextInt(pool.size() - i));
        }
        List<T> chosen = new ArrayList<>(pool.subList(0, limit));
        if (order != null) {
            chosen.sort(order);
        }
        return chosen;
    }

    /**
     * The preference order over a striped window ({@link dev.leasebox.outbox.CandidateStripe}):
     * lapsed claims first for up to three quarters of {@code limit} as above, then the worker's own
     * stripe oldest first (no other worker prefers those rows, so there is nothing to spread), then
     * the rest of the window a block at a time ({@code id / block}, rounded down), the blocks in
     * random order and each block's rows oldest first: rows other workers prefer, where a random draw
     * keeps helpers apart, and a whole block of them costs a manager that grants blocks under one lock
     * ({@link dev.leasebox.claim.leased.RowBlockLeases}) one grant instead of one per row. With
     * {@code block} 1, the rest is a uniform random order of its rows. At most {@code limit} distinct ids.
     */
    static List<Long> chooseStriped(List<Candidate> window, int limit, int block, RandomGenerator random) {
        if (block < 1) {
            throw new IllegalArgumentException("block must be at least 1 row, was " + block);
        }
        List<Candidate> lapsed = new ArrayList<>();
        for (Candidate candidate : window) {
            if (candidate.lapsed()) {
                lapsed.add(candidate);
            }
        }
        int quota = Math.min(lapsed.size(), Math.min(limit, lapsedQuota(limit, random)));
        for (int i = 0; i < quota; i++) {
            swap(lapsed, i, i + random.nextInt(lapsed.size() - i));
        }
        LinkedHashSet<Long> chosen = new LinkedHashSet<>();
        for (Candidate candidate : lapsed.subList(0, quota)) {
            chosen.add(candidate.id());
        }
        Map<Long, List<Long>> restByBlock = new LinkedHashMap<>();
        for (Candidate candidate : window) {
            if (chosen.contains(candidate.id())) {
                continue;
            }
            if (candidate.own() && chosen.size() < limit) {
                chosen.add(candidate.id());
            } else if (!candidate.own()) {
                restByBlock.computeIfAbsent(Math.floorDiv(candidate.id(), (long) block), b -> new ArrayList<>()).add(candidate.id());
            }
        }
        List<List<Long>> blocks = new ArrayList<>(restByBlock.values());
        for (int i = 0; i < blocks.size() && chosen.size() < limit; i++) {
            swap(blocks, i, i + random.nextInt(blocks.size() - i));
            List<Long> rows = blocks.get(i);
            rows.sort(null);
            for (int r = 0; r < rows.size() && chosen.size() < limit; r++) {
                chosen.add(rows.get(r));
            }
        }
        return List.copyOf(chosen);
    }

    /** Three quarters of {@code limit}, rounded down or up at random so that its mean is exact. */
    private static int lapsedQuota(int limit, RandomGenerator random) {
        return 3 * limit / 4 + (random.nextInt(4) < 3 * limit % 4 ? 1 : 0);
    }

    private static <T> void swap(List<T> list, int i, int j) {
        T at = list.get(i);
        list.set(i, list.get(j));
        list.set(j, at);
    }
}
