package dev.leasebox.chaos.worker;

import dev.leasebox.outbox.ClaimCompletion;
import dev.leasebox.outbox.CompletionOutcome;
import dev.leasebox.outbox.ForwardingOutboxClaimStore;
import dev.leasebox.outbox.OutboxClaimStore;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * A deliberately broken claim store for {@code --unsafe-no-fence}, so that the chaos suite can prove
 * its checker catches the bug fencing prevents; never reachable from {@code leasebox worker}.
 *
 * <ul>
 *   <li>Row claims (row leases, and recorded partition claims): before each completion it rewrites the
 *       row's {@code claim_token} to the presented token, so the store's token check always passes and
 *       a zombie worker's stale completion is accepted.</li>
 *   <li>Lean partition claims: completions go through the partitioned store first (slot grant and row
 *       fence checked by {@code slot_complete.sql}); every completion it refuses (a newer grant of the
 *       slot is registered, the row's fence mark is above the grant's, or the claim was dropped as lost)
 *       is then forced through the row store ({@code rowStore}) with its {@code claim_token} rewritten
 *       as above: the slot-grant check and the fence check are both bypassed, and the zombie's write lands
 *       whenever the row is still completable.</li>
 * </ul>
 */
final class UnfencedClaimStore extends ForwardingOutboxClaimStore {

    private final OutboxClaimStore rowStore;
    private final DataSource dataSource;
    private final String unfenceSql;

    /**
     * @param delegate the worker's claim store
     * @param rowStore the table's row store (token-checked completion), for lean partition claims; null otherwise
     */
    UnfencedClaimStore(OutboxClaimStore delegate, OutboxClaimStore rowStore, DataSource dataSource, String qualifiedTable) {
        super(delegate);
        this.rowStore = rowStore;
        this.dataSource = dataSource;
        this.unfenceSql = ChaosSql.load("unfence_claim.sql", qualifiedTable);
    }

    @Override
    public List<CompletionOutcome> completeAll(List<ClaimCompletion> completions) {
        if (rowStore == null) {
            unfence(completions);
            return delegate.completeAll(completions);
        }
        List<CompletionOutcome> outcomes = new ArrayList<>(delegate.completeAll(completions));
        List<ClaimCompletion> refused = new ArrayList<>();
        List<Integer> refusedAt = new ArrayList<>();
        for (int i = 0; i < outcomes.size(); i++) {
            if (!outcomes.get(i).isCompleted()) {
                refused.add(completions.get(i));
                refusedAt.add(i);
            }
        }
        if (!refused.isEmpty()) {
            unfence(refused);
            List<CompletionOutcome> forced = rowStore.completeAll(refused);
            for (int k = 0; k < forced.size(); k++) {
                outcomes.set(refusedAt.get(k), forced.get(k));
            }
        }
        return outcomes;
    }

    private void unfence(List<ClaimCompletion> completions) {
        try (Connection c = dataSource.getConnection(); PreparedStatement s = c.prepareStatement(unfenceSql)) {
            c.setAutoCommit(true);
            for (ClaimCompletion completion : completions) {
                s.setLong(1, completion.claim().token());
                s.setLong(2, completion.claim().entryId());
                s.addBatch();
            }
            s.executeBatch();
        } catch (SQLException e) {
            throw new IllegalStateException("unsafe-no-fence: could not rewrite claim tokens: " + e.getMessage(), e);
        }
    }
}
