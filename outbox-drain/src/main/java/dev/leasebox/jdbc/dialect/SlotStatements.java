package dev.leasebox.jdbc.dialect;

import dev.leasebox.claim.partition.SlotGrant;
import dev.leasebox.claim.partition.SlotOutboxStore.SlotCompletion;
import dev.leasebox.claim.partition.SlotOutboxStore.SlottedEntry;
import dev.leasebox.jdbc.JdbcOutboxException;
import dev.leasebox.jdbc.lease.JdbcSlotStore;
import dev.leasebox.outbox.ClaimRequest;
import dev.leasebox.outbox.ClaimSelection;
import dev.leasebox.outbox.OutboxEntry;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One database's statements of partition leases ({@code slot_*.sql} and {@code workers_*.sql}), whose
 * shape differs between databases as the row statements' do in {@link SqlDialect}: PostgreSQL binds
 * each batch as arrays into one statement; MariaDB runs a short transaction that share-locks the
 * caller's slot rows first. Both keep the same guarantees, stated in {@link JdbcSlotStore} and the
 * statements' comments. Every {@code now} is null when the database's clock judges.
 */
public sealed interface SlotStatements permits PostgreSqlSlotStatements, MariaDbSlotStatements {

    /** The statements for {@code dialect}'s database; one line naming the flag to change where there are none. */
    static SlotStatements of(SqlDialect dialect) {
        return switch (dialect.kind()) {
            case POSTGRESQL -> new PostgreSqlSlotStatements(dialect);
            case MARIADB -> new MariaDbSlotStatements((MariaDbDialect) dialect);
            case H2 -> throw new JdbcOutboxException("Partition leases need PostgreSQL or MariaDB; " + dialect.table()
                    + " is on " + dialect.kind().folder() + ". Use --granularity row there.");
        };
    }

    /** What one recorded claim in slots asks for: {@code now} judges eligibility; {@code expiresAt} null: now + lease. */
    record SlotClaim(List<SlotGrant> grants, ClaimSelection selection, ClaimRequest request, Instant now,
                     Instant expiresAt, boolean ordered) {
    }

    /** Registers the grants whose fence is above their slot's mark; the slots registered. */
    Set<Integer> register(Connection c, List<SlotGrant> grants, Instant grantedAt) throws SQLException;

    /** The recorded marks of {@code slots}. */
    Map<Integer, Long> highWater(Connection c, List<Integer> slots) throws SQLException;

    /** Claims eligible rows of the slots whose newest recorded grant is the claim's; the claimed rows. */
    List<OutboxEntry> claim(Connection c, SlotClaim claim) throws SQLException;

    /** Eligible rows of {@code grants}' slots not under a recorded claim nor in {@code inFlight}; writes nothing. */
    List<SlottedEntry> select(Connection c, List<SlotGrant> grants, ClaimSelection selection, Instant now,
                              Collection<Long> inFlight, int limit, boolean ordered) throws SQLException;

    /** Completes each row whose grant is still its slot's newest recorded one; the rows written, by id (a mutable map). */
    Map<Long, OutboxEntry> complete(Connection c, List<SlotCompletion> completions, Instant now) throws SQLException;

    /** Heartbeats {@code owner}'s membership until {@code expiresAt}; the members alive at {@code now}, owner included. */
    Set<String> heartbeat(Connection c, String owner, Instant now, Instant expiresAt) throws SQLException;

    /** {@code sql} with its {@code ${key_order}} placeholder as ordered mode's filter, or empty. */
    static String keyOrdered(SqlDialect dialect, String sql, boolean ordered) {
        return sql.replace("${key_order}", ordered ? withoutComments(dialect.sql("slot_key_order")) : "");
    }

    private static String withoutComments(String sql) {
        StringBuilder out = new StringBuilder();
        for (String line : sql.split("\n")) {
            if (!line.strip().startsWith("--") && !line.isBlank()) {
                out.append(line.strip()).append('\n');
            }
        }
        return out.toString().strip();
    }
}
