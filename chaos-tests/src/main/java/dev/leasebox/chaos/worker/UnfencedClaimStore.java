package dev.leasebox.chaos.worker;

import dev.leasebox.outbox.ForwardingOutboxClaimStore;
import dev.leasebox.outbox.ClaimCompletion;
import dev.leasebox.outbox.CompletionOutcome;
import dev.leasebox.outbox.OutboxClaimStore;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;

/**
 * A deliberately broken claim store for {@code --unsafe-no-fence}: before each completion it
 * rewrites the row's {@code claim_token} to the presented token, so the store's token check always
 * passes and a zombie worker's stale completion is accepted. Exists only so that the chaos suite can
 * prove its checker catches the bug fencing prevents; never reachable from {@code leasebox worker}.
 */
final class UnfencedClaimStore extends ForwardingOutboxClaimStore {

    private final DataSource dataSource;
    private final String unfenceSql;

    UnfencedClaimStore(OutboxClaimStore delegate, DataSource dataSource, String qualifiedTable) {
        super(delegate);
        this.dataSource = dataSource;
        this.unfenceSql = ChaosSql.load("unfence_claim.sql", qualifiedTable);
    }

    @Override
    public List<CompletionOutcome> completeAll(List<ClaimCompletion> completions) {
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
        return delegate.completeAll(completions);
    }
}
