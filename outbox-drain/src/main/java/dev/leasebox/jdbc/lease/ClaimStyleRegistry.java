package dev.leasebox.jdbc.lease;

import dev.leasebox.jdbc.JdbcOutboxException;
import dev.leasebox.jdbc.JdbcUrls;
import dev.leasebox.jdbc.LeaseboxSchema;
import dev.leasebox.jdbc.dialect.SqlDialect;
import dev.leasebox.jdbc.store.JdbcOutboxStore;
import dev.leasebox.lease.MonotonicClock;
import dev.leasebox.outbox.ClaimLossListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * Keeps workers whose claims cannot exclude each other off one table (migration V4, the table's
 * {@code _claim_styles}). Recorded claims of every backend exclude each other through the row (claim
 * columns, fence high-water mark, row locks); lean claims write nothing before emitting and exclude only
 * lean workers of the same lease keys on the same coordinator and namespace. So a table's live workers
 * must all claim recorded, or all claim lean with one {@link ClaimStyle#key()}.
 *
 * <p>{@link #join} registers the caller's style in a transaction that first locks the registry's guard
 * row (two workers starting at once are ordered) and refuses, with one line naming both sides, while a
 * live registration of another style exists. The registration is renewed every third of its validity in
 * the background, with the same check; a renewal that finds a live worker of another style (this
 * worker's registration had lapsed, e.g. the database was unreachable for longer than the validity) tells
 * {@code onConflict}, which should stop the drain. Liveness is judged by the database's clock.
 * {@link #close} leaves the registry.
 *
 * <p>{@link #confirm()} says whether the worker may start a claim: yes while its last registration is
 * younger than two thirds of the validity by a monotonic clock (measured from before the statement was
 * sent, so the database's expiry lies at least a third of the validity later); otherwise it registers again
 * on the caller's thread first. A worker whose registration lapsed therefore learns of a conflicting worker
 * that joined meanwhile before its next claim, not at its next scheduled renewal; after a conflict it
 * never confirms again.
 *
 * <p>It also keeps the table's count of claims taken over (V8, decision 0046): the drain tells
 * {@link #takeovers()} of the takeovers its claims make, and the registry adds them to the guard row's
 * {@code taken_over} in its heartbeat transaction, which already locks that row. A takeover asks for a
 * heartbeat at once on the registry's own thread (never on the claiming thread), and {@link #close} adds what
 * is left. A count is kept until the transaction that adds it commits, so a failed heartbeat adds it with the
 * next one; on a table without V8 nothing is added, and counts wait until V8 is applied.
 */
public final class ClaimStyleRegistry implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ClaimStyleRegistry.class);

    /**
     * How a worker claims, for the registry. Workers may share a table only when their keys are equal.
     *
     * @param key         what must be equal: {@code recorded}, or {@code lean …} naming granularity, backend,
     *                    coordinator and namespace
     * @param description the same for people, as the refusal names it
     */
    public record ClaimStyle(String key, String description) {
        public ClaimStyle {
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(description, "description");
            if (key.isBlank()) {
                throw new IllegalArgumentException("a claim style's key must not be blank");
            }
        }

        /** Recorded claims (any backend, any granularity): they exclude each other through the row. */
        public static ClaimStyle recorded(String description) {
            return new ClaimStyle("recorded", description);
        }

        /**
         * Lean claims: only workers of the same granularity, lease backend, coordinator and namespace exclude
         * each other.
         */
        public static ClaimStyle lean(String granularity, String backend, String coordinator, String namespace) {
            return lean(granularity, "", backend, coordinator, namespace);
        }

        /**
         * As above, for row leases keyed as {@code rowKeys} says ({@code LeaseGrouping.rowKeys()}: empty for a lease
         * per row): two workers that map one row to different lease keys are never granted it exclusively.
         */
        public static ClaimStyle lean(String granularity, String rowKeys, String backend, String coordinator,
                                      String namespace) {
            String keyed = rowKeys.isEmpty() ? "" : " " + rowKeys;
            String key = "lean " + granularity + keyed + " " + backend + " " + coordinator + " namespace " + namespace;
            return new ClaimStyle(key, "lean " + granularity + " claims" + (rowKeys.isEmpty() ? "" : " (" + rowKeys + ")")
                    + " through " + backend + " at " + coordinator + " (namespace " + namespace + ")");
        }
    }

    /** A live registration of another worker. */
    public record Registration(String owner, ClaimStyle style, String expiresAt) {
    }

    private final DataSource dataSource;
    private final SqlDialect dialect;
    private final String owner;
    private final ClaimStyle style;
    private final Duration validity;
    private final Consumer<String> onConflict;
    private final AtomicBoolean conflicted = new AtomicBoolean();
    private final ScheduledExecutorService renewer;
    private final Clock local = MonotonicClock.system();
    /** Until when, by {@link #local}, the last registration is certainly live (with a third of the validity to spare). */
    private volatile Instant confirmedUntil = Instant.MIN;
    private final TakeoverCount takenOver;
    /** Whether a heartbeat was asked for early, to add takeovers, and has not started yet. */
    private final AtomicBoolean heartbeatAsked = new AtomicBoolean();

    private ClaimStyleRegistry(DataSource dataSource, SqlDialect dialect, String owner, ClaimStyle style, Duration validity,
                               Consumer<String> onConflict) {
        this.dataSource = dataSource;
        this.dialect = dialect;
        this.owner = owner;
        this.style = style;
        this.validity = validity;
        this.onConflict = onConflict;
        this.takenOver = new TakeoverCount(dialect, owner);
        this.renewer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "leasebox-claim-style-" + owner);
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * How long a worker's registration lives without renewal: three lease durations, at least 3 s, so that a
     * worker that died without leaving blocks the table no longer than that.
     */
    public static Duration validityFor(Duration leaseTtl) {
        Duration three = leaseTtl.multipliedBy(3);
        return three.compareTo(Duration.ofSeconds(3)) < 0 ? Duration.ofSeconds(3) : three;
    }

    /**
     * Registers {@code owner}'s style on {@code rows}' table and keeps it registered until {@link #close}.
     *
     * @param validity   how long a registration lives without renewal (renewed every third of it)
     * @param onConflict told once, with one line, when a renewal finds a live worker of another style
     * @throws JdbcOutboxException one line naming both sides when a live worker of another style is
     *                             registered, or naming V4 when the table lacks the registry
     */
    public static ClaimStyleRegistry join(DataSource dataSource, JdbcOutboxStore rows, String owner, ClaimStyle style,
                                          Duration validity, Consumer<String> onConflict) {
        Objects.requireNonNull(owner, "owner");
        Objects.requireNonNull(style, "style");
        Objects.requireNonNull(onConflict, "onConflict");
        if (validity.compareTo(Duration.ofSeconds(1)) < 0) {
            throw new IllegalArgumentException("a claim-style registration must be valid for at least 1s, was " + validity);
        }
        ClaimStyleRegistry registry = new ClaimStyleRegistry(dataSource, rows.dialect(), owner, style, validity, onConflict);
        List<Registration> others = registry.registerAndConfirm(false);
        if (!others.isEmpty()) {
            registry.renewer.shutdownNow();
            throw new JdbcOutboxException(registry.refusal(others));
        }
        long every = Math.max(validity.toMillis() / 3, 100);
        registry.renewer.scheduleWithFixedDelay(registry::renew, every, every, TimeUnit.MILLISECONDS);
        return registry;
    }

    /** The line a refusal prints: this worker's style, the other side's, and what to do. */
    private String refusal(List<Registration> others) {
        Registration first = others.get(0);
        return "Worker " + owner + " cannot claim from " + dialect.table() + " with " + style.description() + ": "
                + others.size() + " live worker(s) of that table claim with " + first.style().description() + " (e.g. "
                + first.owner() + ", registered until " + first.expiresAt() + " by the database's clock), and the two "
                + "cannot exclude each other. Run every worker of a table with recorded claims, or every one with the same "
                + "lean backend, coordinator and namespace: stop those workers first, or change the claim mode "
                + "(--claim-mode, leasebox.claim-mode) or the backend to match them";
    }

    /**
     * Registers (or renews) in one transaction, adding the unwritten takeovers when {@code addTakeovers} (the
     * heartbeat; not on the claiming thread); returns the live registrations of other styles (nothing written then).
     */
    private List<Registration> register(boolean addTakeovers) {
        String where = JdbcUrls.describe(dataSource);
        try (Connection c = dataSource.getConnection()) {
            boolean autoCommit = c.getAutoCommit();
            long adding = addTakeovers ? takenOver.toAdd(c) : 0;
            c.setAutoCommit(false);
            try {
                List<Registration> others = registerIn(c);
                if (others.isEmpty()) {
                    takenOver.add(c, adding);
                }
                c.commit();
                if (others.isEmpty()) {
                    takenOver.added(adding);
                }
                return others;
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            } finally {
                c.setAutoCommit(autoCommit);
            }
        } catch (SQLException e) {
            if (dialect.isMissingTable(e)) {
                throw new JdbcOutboxException("Outbox table " + dialect.table() + " at " + where + " lacks "
                        + dialect.table() + "_claim_styles, which keeps workers whose claims cannot exclude each other "
                        + "apart: apply " + LeaseboxSchema.resourcePath(dialect.kind(), LeaseboxSchema.V4_FILE)
                        + " (leasebox schema --apply --jdbc-url URL)", e);
            }
            throw new JdbcOutboxException("Registering worker " + owner + "'s claim style on " + dialect.table() + " at "
                    + where + " failed: " + JdbcUrls.rootMessage(e), e);
        }
    }

    /**
     * Counts the takeovers of the drain's claims ({@link ClaimLossListener#claimsTakenOver}) for the table and asks
     * for a heartbeat to add them; never blocks the claiming thread.
     */
    public ClaimLossListener takeovers() {
        return new ClaimLossListener() {
            @Override
            public void claimsLost(Set<Long> entryIds, String cause) {
                // the drain abandons lost claims; only takeovers are counted in the table
            }

            @Override
            public void claimsTakenOver(Set<Long> entryIds) {
                takenOver.counted(entryIds.size());
                if (heartbeatAsked.compareAndSet(false, true)) {
                    try {
                        renewer.execute(ClaimStyleRegistry.this::renew);
                    } catch (RejectedExecutionException closing) {
                        heartbeatAsked.set(false); // close() adds what is left
                    }
                }
            }
        };
    }

    /** Takeovers counted and not yet added to the table's count by a committed heartbeat. */
    public long unwrittenTakeovers() {
        return takenOver.unwritten();
    }

    /**
     * Whether the table has its count of takeovers (V8), as the last heartbeat that had takeovers to add found it;
     * empty until one looked, and again after adding failed for want of the column.
     */
    public Optional<Boolean> tableCountsTakeovers() {
        return takenOver.inTable();
    }

    private List<Registration> registerIn(Connection c) throws SQLException {
        try (PreparedStatement lock = c.prepareStatement(dialect.sql("claim_styles_lock")); ResultSet rs = lock.executeQuery()) {
            if (!rs.next()) {
                throw new JdbcOutboxException(dialect.table() + "_claim_styles lacks its guard row (owner ''): re-apply "
                        + LeaseboxSchema.V4_FILE + "'s INSERT");
            }
        }
        List<Registration> others = new ArrayList<>();
        try (PreparedStatement live = c.prepareStatement(dialect.sql("claim_styles_live"))) {
            live.setString(1, owner);
            try (ResultSet rs = live.executeQuery()) {
                while (rs.next()) {
                    ClaimStyle theirs = new ClaimStyle(rs.getString(2), rs.getString(3));
                    if (!theirs.key().equals(style.key())) {
                        others.add(new Registration(rs.getString(1), theirs, rs.getString(4)));
                    }
                }
            }
        }
        if (!others.isEmpty()) {
            return others;
        }
        try (PreparedStatement forget = c.prepareStatement(dialect.sql("claim_styles_forget"))) {
            forget.executeUpdate();
        }
        try (PreparedStatement upsert = c.prepareStatement(dialect.sql("claim_styles_register"))) {
            upsert.setString(1, owner);
            upsert.setString(2, style.key());
            upsert.setString(3, style.description());
            upsert.setLong(4, validity.toMillis());
            upsert.executeUpdate();
        }
        return List.of();
    }

    /**
     * Whether this worker may start a claim now: true while its registration is confirmed live (see the class
     * comment); otherwise it registers again first, and answers false when that finds a live worker of
     * another style ({@code onConflict} is told) or fails (the next call tries again).
     */
    public boolean confirm() {
        if (!conflicted.get() && local.instant().isBefore(confirmedUntil)) {
            return true;
        }
        synchronized (this) {
            if (conflicted.get()) {
                return false;
            }
            if (local.instant().isBefore(confirmedUntil)) {
                return true;
            }
            try {
                return registeredWithoutConflict(false);
            } catch (RuntimeException e) {
                log.warn("Worker {}: its claim-style registration on {} is not confirmed and registering again failed; "
                        + "no claim starts until it succeeds: {}", owner, dialect.table(), e.getMessage());
                return false;
            }
        }
    }

    /** Registers, remembering until when the registration is certainly live; returns the conflicting live ones. */
    private List<Registration> registerAndConfirm(boolean addTakeovers) {
        Instant sent = local.instant();
        List<Registration> others = register(addTakeovers);
        if (others.isEmpty()) {
            confirmedUntil = sent.plus(validity.minus(validity.dividedBy(3)));
        }
        return others;
    }

    /** Registers again; on a conflict tells {@code onConflict} (once) and returns false. Runs under this object's lock. */
    private boolean registeredWithoutConflict(boolean addTakeovers) {
        List<Registration> others = registerAndConfirm(addTakeovers);
        if (others.isEmpty()) {
            return true;
        }
        if (conflicted.compareAndSet(false, true)) {
            String line = refusal(others) + " (this worker's registration had lapsed)";
            log.error(line);
            onConflict.accept(line);
        }
        return false;
    }

    private synchronized void renew() {
        heartbeatAsked.set(false);
        if (conflicted.get()) {
            return;
        }
        try {
            registeredWithoutConflict(true);
        } catch (RuntimeException e) {
            log.warn("Worker {}: renewing its claim-style registration on {} failed, will retry in {}ms{}: {}", owner,
                    dialect.table(), Math.max(validity.toMillis() / 3, 100), takenOver.unwritten() == 0 ? ""
                            : " (with the " + takenOver.unwritten() + " claims taken over it has yet to add to the table's count)",
                    e.getMessage());
        }
    }

    /**
     * Stops renewing, adds the takeovers not yet added to the table's count, and leaves the registry (a failure
     * is logged: the registration then lapses by itself; takeovers not added are in the worker's metrics only).
     */
    @Override
    public void close() {
        renewer.shutdownNow();
        synchronized (this) { // after a heartbeat in progress: each count is added by one transaction
            if (takenOver.unwritten() > 0 && !conflicted.get()) {
                try {
                    register(true);
                } catch (RuntimeException e) {
                    log.warn("Worker {}: adding its last {} claims taken over to the count of {} failed; they are in its "
                            + "metrics only: {}", owner, takenOver.unwritten(), dialect.table(), e.getMessage());
                }
            }
        }
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(dialect.sql("claim_styles_leave"))) {
            if (!c.getAutoCommit()) {
                c.setAutoCommit(true);
            }
            ps.setString(1, owner);
            ps.executeUpdate();
        } catch (SQLException | RuntimeException e) {
            log.warn("Worker {}: leaving the claim-style registry of {} failed; its registration lapses within {}: {}", owner,
                    dialect.table(), validity, e.getMessage());
        }
    }
}
