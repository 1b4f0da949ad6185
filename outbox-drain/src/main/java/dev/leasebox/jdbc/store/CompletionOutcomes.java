package dev.leasebox.jdbc.store;

import dev.leasebox.jdbc.dialect.SqlDialect;
import dev.leasebox.outbox.ClaimCompletion;
import dev.leasebox.outbox.CompletionOutcome;
import dev.leasebox.outbox.OutboxClaim;
import dev.leasebox.outbox.OutboxEntry;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A batch of completions written in one statement and answered one outcome per completion, in order:
 * those the statement wrote are {@link CompletionOutcome.Completed}; the rest are explained from one
 * extra read of their rows, made only when something was refused.
 */
final class CompletionOutcomes {

    /** The statement that writes a batch, returning the rows it wrote with the token each was written under. */
    @FunctionalInterface
    interface CompletionSql {
        List<SqlDialect.CompletedRow> run(Connection c, List<ClaimCompletion> completions) throws SQLException;
    }

    /** Why a row refused a presented token, if for a reason other than a stale token. */
    @FunctionalInterface
    interface RefusalRule {
        Optional<CompletionOutcome> decide(OutboxEntry row, long presentedToken);
    }

    /** A completion's row and presented token. */
    private record ClaimKey(long entryId, long token) {
    }

    private final OutboxConnections sql;

    CompletionOutcomes(OutboxConnections sql) {
        this.sql = sql;
    }

    List<CompletionOutcome> completeAll(String what, List<ClaimCompletion> completions, CompletionSql write,
                                        RefusalRule refusalRule) {
        if (completions.isEmpty()) {
            return List.of();
        }
        List<SqlDialect.CompletedRow> completed = sql.run(what, c -> write.run(c, completions));
        Map<ClaimKey, OutboxEntry> completedByClaim = new HashMap<>();
        completed.forEach(r -> completedByClaim.put(new ClaimKey(r.entry().id(), r.presentedToken()), r.entry()));
        CompletionOutcome[] outcomes = new CompletionOutcome[completions.size()];
        List<Integer> refused = new ArrayList<>();
        for (int i = 0; i < outcomes.length; i++) {
            OutboxClaim claim = completions.get(i).claim();
            // remove(): a second completion of the same claim in one batch was not the one written
            OutboxEntry row = completedByClaim.remove(new ClaimKey(claim.entryId(), claim.token()));
            if (row != null) {
                outcomes[i] = new CompletionOutcome.Completed(row);
            } else {
                refused.add(i);
            }
        }
        if (!refused.isEmpty()) {
            explainRefusals(completions, refused, refusalRule, outcomes);
        }
        return List.of(outcomes);
    }

    private void explainRefusals(List<ClaimCompletion> completions, List<Integer> refused, RefusalRule refusalRule,
                                 CompletionOutcome[] outcomes) {
        Map<Long, OutboxEntry> rows = sql.readRows(refused.stream().map(i -> completions.get(i).claim().entryId()).toList());
        for (int i : refused) {
            OutboxClaim claim = completions.get(i).claim();
            OutboxEntry row = rows.get(claim.entryId());
            outcomes[i] = row == null
                    ? new CompletionOutcome.Missing(claim.token(), claim.entryId())
                    : refusalRule.decide(row, claim.token())
                            .orElseGet(() -> new CompletionOutcome.StaleToken(claim.token(), row));
        }
    }
}
