package dev.leasebox.jdbc.store;

import dev.leasebox.jdbc.dialect.SqlDialect;
import dev.leasebox.outbox.CandidateQuery;
import dev.leasebox.outbox.CandidateStripe;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The candidate ids {@link JdbcOutboxStore#findClaimCandidateIds} returns: one read of a window of
 * eligible ids, then a sample of it chosen here. The window starts where the store's last read found
 * the queue's head ({@link QueueHead}).
 *
 * <p>Without a stripe: a sample of {@code batch × overAsk} ids drawn from the window of the batch
 * ({@code batch × candidateSpread}, at least the sample, widened by the excluded ids): a wider sample,
 * not a wider read; lapsed claims first for up to three quarters of the sample, the rest at random
 * ({@link CandidateSample#chooseIds}). With a stripe: the ids (and lapsed flags) of the oldest
 * {@code max(max(sample + excluded, block) × stripes, batch × spread)} eligible rows, in the same
 * statement as without one; the sample takes the lapsed claims first (as without a stripe), then
 * the own stripe oldest first, then the rest a block at a time, blocks at random
 * ({@link CandidateSample#chooseStriped}). The window grows with the stripe count so that it still
 * holds a sample's worth of the own stripe, and to a block per stripe when the sample is smaller
 * than a block (any {@code block × stripes} consecutive ids hold a block's worth of every stripe;
 * a batch of 10 against blocks of 64 with a window of the sample alone would find one worker's
 * block and none of the others'); it is capped at {@value #MAX_CANDIDATE_WINDOW} rows (or the
 * sample, if larger). The stripe is picked out here rather than in SQL: running counts over the
 * window in the statement cost more than shipping the window's ids (compare them with the JMH
 * benchmark {@code CandidateReadBenchmark}).
 */
final class ClaimCandidates {

    static final int MAX_CANDIDATE_WINDOW = 10_000;

    private final OutboxConnections sql;
    private final SqlDialect dialect;
    private final int candidateSpread;
    private final QueueHead head;
    private final LapsedCandidates lapsed;

    ClaimCandidates(OutboxConnections sql, SqlDialect dialect, int candidateSpread, QueueHead head,
                    LapsedCandidates lapsed) {
        this.sql = sql;
        this.dialect = dialect;
        this.candidateSpread = candidateSpread;
        this.head = head;
        this.lapsed = lapsed;
    }

    /** The ids to ask leases for; {@code now} as {@link JdbcOutboxStore#judgedNow()} gives it. */
    List<Long> find(CandidateQuery query, Instant now) {
        int sample = query.sample();
        Set<Long> excluded = query.excluded();
        CandidateStripe stripe = query.stripe();
        int asked = sample + excluded.size();
        long wanted = stripe.isStriped()
                ? Math.max(query.stripedWindow(), candidateWindow(query.batch()))
                : Math.max(candidateWindow(query.batch()), sample) + excluded.size();
        int window = (int) Math.min(wanted, Math.max(MAX_CANDIDATE_WINDOW, asked));
        long from = head.from(query.selection());
        List<CandidateSample.Candidate> rows = sql.run("find claim candidates",
                c -> dialect.selectEligibleIds(c, query.selection(), now, from, window));
        head.found(query.selection(), from, rows.isEmpty() ? null : rows.get(0).id());
        List<CandidateSample.Candidate> candidates = new ArrayList<>(rows.size());
        Set<Long> lapsedIds = new HashSet<>();
        for (CandidateSample.Candidate row : rows) {
            if (!excluded.contains(row.id())) {
                candidates.add(new CandidateSample.Candidate(row.id(), row.lapsed(), stripe.contains(row.id())));
                if (row.lapsed()) {
                    lapsedIds.add(row.id());
                }
            }
        }
        List<Long> chosen = stripe.isStriped()
                ? CandidateSample.chooseStriped(candidates, sample, stripe.block(), ThreadLocalRandom.current())
                : CandidateSample.chooseIds(candidates, sample, ThreadLocalRandom.current());
        if (!lapsedIds.isEmpty()) {
            lapsed.offered(chosen.stream().filter(lapsedIds::contains).toList());
        }
        return chosen;
    }

    private int candidateWindow(int limit) {
        return (int) Math.min((long) limit * candidateSpread, Math.max(limit, MAX_CANDIDATE_WINDOW));
    }
}
