package dev.leasebox.jdbc;

import dev.leasebox.jdbc.store.JdbcOutboxStore;
import dev.leasebox.jdbc.store.QueueHead;
import dev.leasebox.outbox.ClaimCompletion;
import dev.leasebox.outbox.ClaimRequest;
import dev.leasebox.outbox.ClaimSelection;
import dev.leasebox.outbox.Completion;
import dev.leasebox.outbox.EmissionResult;
import dev.leasebox.outbox.OutboxClaim;
import dev.leasebox.outbox.OutboxMessage;
import dev.leasebox.testkit.MutableClock;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The queue head ({@link QueueHead}) seen from the store: claims and candidate reads start where the last
 * read found the head, and a row that becomes eligible again below it (here: put back to PENDING, as a
 * redrive does) is found by the next read from the beginning: right after a read from the head came back
 * empty, or once the rescan interval passed. The store's local clock judges the interval; the database's
 * clock still judges the rows.
 */
abstract class QueueHeadScenarios {

    private static final Duration RESCAN = Duration.ofSeconds(1);
    private static final ClaimRequest TEN = new ClaimRequest("w1", 10, Duration.ofSeconds(30));

    private final MutableClock local = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));

    protected abstract DataSource ds();

    protected abstract TableName freshTable();

    private JdbcOutboxStore store(TableName table) {
        return JdbcOutboxStore.builder(ds()).table(table).localClock(local).queueHeadRescan(RESCAN).open();
    }

    @Test
    void theDatabaseClaimFindsARowPutBackBelowTheHeadOnceTheRescanIsDue() throws SQLException {
        TableName table = freshTable();
        JdbcOutboxStore store = store(table);
        List<Long> ids = enqueue(store, 40);
        deliver(store, store.claim(ClaimSelection.ELIGIBLE, TEN)); // ids 0..9, the read from the beginning
        List<OutboxClaim> second = store.claim(ClaimSelection.ELIGIBLE, TEN); // from the head: 10..19
        assertThat(entryIds(second)).isEqualTo(ids.subList(10, 20));

        putBack(table, ids.get(3));
        assertThat(entryIds(store.claim(ClaimSelection.ELIGIBLE, TEN))).as("from the head, the row put back waits")
                .isEqualTo(ids.subList(20, 30));

        local.advance(RESCAN);
        assertThat(entryIds(store.claim(ClaimSelection.ELIGIBLE, TEN))).as("the rescan is due: from the beginning")
                .startsWith(ids.get(3)).contains(ids.get(30)).hasSize(10);
    }

    @Test
    void theDatabaseClaimReadsFromTheBeginningRightAfterAnEmptyReadFromTheHead() throws SQLException {
        TableName table = freshTable();
        JdbcOutboxStore store = store(table);
        List<Long> ids = enqueue(store, 20);
        deliver(store, store.claim(ClaimSelection.ELIGIBLE, TEN));
        deliver(store, store.claim(ClaimSelection.ELIGIBLE, TEN));

        putBack(table, ids.get(5));
        assertThat(store.claim(ClaimSelection.ELIGIBLE, TEN)).as("nothing from the head on").isEmpty();
        assertThat(entryIds(store.claim(ClaimSelection.ELIGIBLE, TEN))).as("then a read from the beginning")
                .containsExactly(ids.get(5));
    }

    @Test
    void theCandidateReadOfTheExternalBackendsStartsAtTheHeadToo() throws SQLException {
        TableName table = freshTable();
        JdbcOutboxStore store = store(table);
        List<Long> ids = enqueue(store, 30);
        dev.leasebox.outbox.CandidateQuery query = dev.leasebox.outbox.CandidateQuery.of(ClaimSelection.ELIGIBLE, 10, 1);
        assertThat(store.findClaimCandidateIds(query)).isEqualTo(ids.subList(0, 10));
        deliver(store, store.claim(ClaimSelection.ELIGIBLE, TEN)); // the database claim shares the head
        deliver(store, store.claim(ClaimSelection.ELIGIBLE, TEN)); // the head is at 10 now

        putBack(table, ids.get(2));
        assertThat(store.findClaimCandidateIds(query)).as("from the head").isEqualTo(ids.subList(20, 30));
        local.advance(RESCAN);
        assertThat(store.findClaimCandidateIds(query)).as("from the beginning").startsWith(ids.get(2), ids.get(20));
    }

    private static List<Long> enqueue(JdbcOutboxStore store, int count) {
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            String type = "queue.head." + i;
            ids.add(store.enqueue(OutboxMessage.of(type, type.getBytes(StandardCharsets.UTF_8))).id());
        }
        return ids;
    }

    private static void deliver(JdbcOutboxStore store, List<OutboxClaim> claims) {
        List<ClaimCompletion> done = new ArrayList<>();
        for (OutboxClaim claim : claims) {
            done.add(new ClaimCompletion(claim, new Completion.Delivered(EmissionResult.at(Instant.now()))));
        }
        store.completeAll(done);
    }

    private static List<Long> entryIds(List<OutboxClaim> claims) {
        return claims.stream().map(OutboxClaim::entryId).toList();
    }

    /** What a redrive does to a finalized row: PENDING again, no claim. */
    private void putBack(TableName table, long id) throws SQLException {
        try (Connection c = ds().getConnection();
             PreparedStatement ps = c.prepareStatement("UPDATE " + table.qualified() + " SET status = 'PENDING',"
                     + " delivered_at = NULL, claim_owner = NULL, claimed_at = NULL, claim_expires_at = NULL,"
                     + " claim_token = NULL WHERE id = ?")) {
            ps.setLong(1, id);
            assertThat(ps.executeUpdate()).isEqualTo(1);
        }
    }
}
