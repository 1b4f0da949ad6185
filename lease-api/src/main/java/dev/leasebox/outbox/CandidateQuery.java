package dev.leasebox.outbox;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * What a leased claim asks the store for before it asks the coordinator: candidate ids for a batch
 * of {@code batch} rows, {@code batch × overAsk} of them ({@link #sample()}: more with blocks; the
 * claim asks leases for all and takes at most a batch), preferring {@code stripe}'s rows and leaving
 * out {@code excluded}, the rows this worker's other claim loops are acquiring or hold right now
 * (asking for them again could only be refused).
 *
 * @param selection which eligible rows
 * @param batch     the rows the claim wants
 * @param overAsk   how many times the batch to ask leases for, at least 1
 * @param stripe    the rows to prefer ({@link CandidateStripe#ALL}: none)
 * @param excluded  ids never to return
 */
public record CandidateQuery(ClaimSelection selection, int batch, int overAsk, CandidateStripe stripe, Set<Long> excluded) {

    public CandidateQuery {
        Objects.requireNonNull(selection, "selection");
        Objects.requireNonNull(stripe, "stripe");
        if (batch < 1) {
            throw new IllegalArgumentException("batch must be at least 1, was " + batch);
        }
        if (overAsk < 1) {
            throw new IllegalArgumentException("overAsk must be at least 1, was " + overAsk);
        }
        excluded = Set.copyOf(excluded);
    }

    /** A query with no preference and nothing excluded. */
    public static CandidateQuery of(ClaimSelection selection, int batch, int overAsk) {
        return new CandidateQuery(selection, batch, overAsk, CandidateStripe.ALL, Set.of());
    }

    /**
     * How many of the oldest eligible ids a striped read looks at: {@code max(sample + excluded, block)
     * × stripes}, so that the window holds a sample's worth of this stripe, and at least a block of
     * every stripe when the sample is smaller than a block (any {@code block × stripes} consecutive ids
     * hold a block of each stripe).
     */
    public long stripedWindow() {
        return (long) Math.max(sample() + excluded.size(), stripe.block()) * stripe.count();
    }

    /**
     * How many candidates to return at most: {@code batch × overAsk}, and with a stripe of blocks of
     * more than one row at least {@code batch + block}. A manager that grants a block under one lock
     * (the drain's grouped leases) refuses a block whole, and the own stripe's
     * oldest rows can all lie in one block that another worker still holds (it leased rows of it before
     * the stripes changed); a sample of {@code batch × overAsk} rows could then lie wholly in that block
     * and the claim come back short or empty. With {@code batch + block} rows, one refused block still
     * leaves a batch.
     */
    public int sample() {
        int asked = Math.multiplyExact(batch, overAsk);
        return stripe.block() > 1 ? Math.max(asked, Math.addExact(batch, stripe.block())) : asked;
    }

    /**
     * The reference order over a window of eligible ids given oldest first (what a store without a
     * sampling strategy of its own returns): excluded ids dropped, then this stripe's ids oldest first,
     * then the others oldest first, at most {@link #sample()}.
     */
    public List<Long> preferenceOrder(List<Long> oldestFirst) {
        List<Long> own = new ArrayList<>();
        List<Long> others = new ArrayList<>();
        for (Long id : oldestFirst) {
            if (!excluded.contains(id)) {
                (stripe.contains(id) ? own : others).add(id);
            }
        }
        own.addAll(others);
        return List.copyOf(own.subList(0, Math.min(own.size(), sample())));
    }
}
