package dev.leasebox.jdbc.store;

import dev.leasebox.jdbc.DatabaseKind;
import dev.leasebox.jdbc.LeaseboxSchema;
import dev.leasebox.jdbc.OutboxWriter;
import dev.leasebox.jdbc.TableName;
import dev.leasebox.jdbc.dialect.EntryRows;
import dev.leasebox.jdbc.dialect.QueueScan;
import dev.leasebox.jdbc.dialect.SqlDialect;
import dev.leasebox.outbox.CandidateQuery;
import dev.leasebox.outbox.ClaimCompletion;
import dev.leasebox.outbox.ClaimGrant;
import dev.leasebox.outbox.ClaimLossListener;
import dev.leasebox.outbox.ClaimRecording;
import dev.leasebox.outbox.ClaimRequest;
import dev.leasebox.outbox.ClaimSelection;
import dev.leasebox.outbox.Completion;
import dev.leasebox.outbox.CompletionOutcome;
import dev.leasebox.outbox.FencedOutboxStore;
import dev.leasebox.outbox.OutboxClaim;
import dev.leasebox.outbox.OutboxClaimStore;
import dev.leasebox.outbox.OutboxEntry;
import dev.leasebox.outbox.OutboxMessage;

import javax.sql.DataSource;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The outbox in a PostgreSQL, MariaDB or H2 table, on any {@link DataSource} (HikariCP in real use, see
 * the CLI's {@code JdbcDataSources}). It is both the {@code database} claim backend ({@link OutboxClaimStore}:
 * the lease lives in the row, tokens from the table's sequence, no coordinator) and a
 * {@link FencedOutboxStore} under which an external lease manager is layered.
 *
 * <p>Guarantees:
 * <ul>
 *   <li>Every phase is one statement per batch on PostgreSQL (candidates, claim recording,
 *       completion, renewal); refused grants and refused completions cost one extra read, only
 *       when something was refused, to say why.</li>
 *   <li>A claim is written only when its token is strictly above the row's {@code fence_high_water}
 *       and the row is eligible; {@code fence_high_water} is raised to the token and never cleared.</li>
 *   <li>A completion is written only while the row's {@code claim_token} equals the presented
 *       token, checked in the UPDATE's own WHERE (never read-then-write). A fenced completion
 *       ({@link #completeAllFenced}, the lean claim mode) is written only while the presented token is
 *       strictly above the row's {@code fence_high_water}, which it raises to the token, and no unexpired
 *       recorded claim is on the row (another holder's live claim is never cleared), in the same way.</li>
 *   <li>Expiry is judged by the database's clock: every statement that decides whether a claim has
 *       expired or a row is due uses the database's {@code now()}, and the {@code database} backend
 *       writes its claims' expiry as {@code now() + lease} by that clock, so workers on machines whose
 *       clocks disagree judge every claim alike. Local deadlines (when a worker stops trusting its own
 *       claim) come from a monotonic clock ({@link dev.leasebox.lease.MonotonicClock}), read before the
 *       statement is sent, so they end no later than the row's expiry. A store built with an explicit
 *       {@code clock(...)} (tests) judges by that clock instead. Instants are stored with microsecond
 *       precision.</li>
 *   <li>Statements run in auto-commit mode, each atomic by itself; no transaction spans two.</li>
 *   <li>{@link #findClaimCandidateIds} returns the oldest eligible rows (the fenced-store contract),
 *       {@link #findClaimCandidateIds} their ids only (what the leased claim path reads).
 *       With {@code candidateSpread(n > 1)} they spread concurrent workers instead: they read the
 *       oldest {@code limit × n} eligible rows (ids) in the same one statement and return a random
 *       {@code limit} of them, oldest first, so workers racing for external leases mostly ask for
 *       different rows; rows whose claim lapsed (a dead holder's) fill up to three quarters of
 *       that sample first, so they fail over within a claim cycle ({@link CandidateSample}). A
 *       {@link dev.leasebox.outbox.CandidateQuery} with a stripe (the worker's rank among its
 *       peers) puts the oldest rows of the worker's own stripe first instead of a random draw, so
 *       workers ask for disjoint rows. The {@code database} backend needs neither: SKIP LOCKED does it.</li>
 *   <li>The claim and the candidate read start where the store's last read found the head of the
 *       queue ({@link QueueHead}), so they do not step over the index entries of rows finalized since
 *       the last vacuum; every {@link Builder#queueHeadRescan second} one reads from the beginning
 *       again, for rows that became eligible below the head. On PostgreSQL they run with their plan
 *       pinned to the ordered index walk ({@link QueueScan}).</li>
 *   <li>The batched PostgreSQL statements (claim records, completions, fenced completions,
 *       renewals, the lean path's post-grant read) find their rows by primary key only, so each
 *       touches the batch's rows and no others whatever the table's statistics say.</li>
 *   <li>With {@code claimRecordsWithoutWalFlush()}, {@link #recordClaims} commits without waiting for
 *       durability (PostgreSQL: {@code SET LOCAL synchronous_commit = off}, in a transaction of its
 *       own). A database crash may lose the last claim records: such a row shows its previous claim
 *       (and high-water mark) again, the newer holder's completion is refused (the row does not carry
 *       its token), and the previous holder's completion, should it still arrive, is accepted as if
 *       the reclaim had never happened. That costs at most a duplicate emission; no write ever lands
 *       over a newer <em>durable</em> claim or outcome. Completions stay durable. Off by default: a
 *       checker that trusts the workers' histories over the table would count that late completion
 *       as stale.</li>
 * </ul>
 *
 * <p>The schema is checked when the store is opened and never changed by it: see
 * {@link LeaseboxSchema}. With {@code useClaimLeases = false} only the selection-only
 * {@link dev.leasebox.outbox.OutboxStore} operations work, on a V1 table.
 */
public final class JdbcOutboxStore implements OutboxClaimStore, FencedOutboxStore {

    /** {@link Builder#queueHeadRescan}'s default, in milliseconds. */
    public static final long DEFAULT_QUEUE_HEAD_RESCAN_MILLIS = 1_000;
    /** The largest candidate spread: the one limit the builder, {@code Leasebox} and the settings' {@code candidate-spread} share. */
    public static final int MAX_CANDIDATE_SPREAD = 100;
    private static final java.time.Duration DEFAULT_QUEUE_HEAD_RESCAN =
            java.time.Duration.ofMillis(DEFAULT_QUEUE_HEAD_RESCAN_MILLIS);

    private final DataSource dataSource;
    private final SqlDialect dialect;
    private final java.time.Clock clock;
    /** True (the default): the database's clock judges and writes expiries; {@link #clock} keeps local deadlines. */
    private final boolean databaseJudges;
    private final boolean claimLeases;
    private final OutboxConnections sql;
    private final QueueHead queueHead;
    private final ClaimCandidates claimCandidates;
    private final ClaimRecorder claimRecorder;
    private final CompletionOutcomes completionOutcomes;
    private final List<ClaimLossListener> lossListeners = new java.util.concurrent.CopyOnWriteArrayList<>();

    private JdbcOutboxStore(Builder b, SqlDialect dialect) {
        this.dataSource = b.dataSource;
        this.dialect = dialect;
        this.clock = b.clock;
        this.databaseJudges = b.databaseJudges;
        this.claimLeases = b.useClaimLeases;
        this.sql = new OutboxConnections(b.dataSource, dialect);
        this.queueHead = new QueueHead(b.clock, b.queueHeadRescan);
        LapsedCandidates lapsed = new LapsedCandidates();
        this.claimCandidates = new ClaimCandidates(sql, dialect, b.candidateSpread, queueHead, lapsed);
        this.claimRecorder = new ClaimRecorder(sql, dialect, b.durableClaimRecords, lapsed);
        this.completionOutcomes = new CompletionOutcomes(sql);
    }

    /** Starts configuring a store on {@code dataSource}. */
    public static Builder builder(DataSource dataSource) {
        return new Builder(dataSource);
    }

    /** The writer for this store's table, for enqueueing inside the caller's transaction. */
    public OutboxWriter writer() {
        return OutboxWriter.of(dialect.table(), clock);
    }

    public SqlDialect dialect() {
        return dialect;
    }

    public TableName table() {
        return dialect.table();
    }

    /** Whether claims are enabled (the table has the V2 claim columns). */
    public boolean usesClaimLeases() {
        return claimLeases;
    }

    // ---- selection-only operations -----------------------------------------------------------

    @Override
    public OutboxEntry enqueue(OutboxMessage message) {
        return writer().enqueue(dataSource, message);
    }

    @Override
    public List<OutboxEntry> findPending(int limit) {
        return select(ClaimSelection.PENDING, limit);
    }

    @Override
    public List<OutboxEntry> findRetryReady(int limit) {
        return select(ClaimSelection.RETRY_READY, limit);
    }

    private List<OutboxEntry> select(ClaimSelection selection, int limit) {
        requirePositive(limit);
        Instant now = judgedNow();
        return sql.run("select " + selection + " entries", c -> dialect.selectEligible(c, selection, now, limit, claimLeases));
    }

    @Override
    public OutboxEntry save(OutboxEntry entry) {
        return sql.run("save entry " + entry.id(), c -> dialect.save(c, entry, claimLeases))
                .orElseThrow(() -> new NoSuchElementException("no outbox entry with id " + entry.id() + " in " + table()));
    }

    @Override
    public Optional<OutboxEntry> find(long id) {
        return sql.run("find entry " + id, c -> dialect.findById(c, id, claimLeases));
    }

    // ---- the database claim backend ----------------------------------------------------------

    @Override
    public List<OutboxClaim> claim(ClaimSelection selection, ClaimRequest request) {
        requireClaims("claim");
        // taken before the statement is sent: the local deadline ends no later than the row's expiry
        Instant sent = EntryRows.micros(clock.instant());
        Instant localDeadline = sent.plus(request.leaseDuration());
        Instant now = databaseJudges ? null : sent;
        Instant expiresAt = databaseJudges ? null : localDeadline;
        long leaseMillis = request.leaseDuration().toMillis();
        long from = queueHead.from(selection);
        SqlDialect.ClaimedRows claimed = sql.run("claim " + selection + " entries", c ->
                dialect.claimInDatabase(c, selection, request.owner(), now, expiresAt, leaseMillis, from,
                        request.batchSize()));
        queueHead.found(selection, from, claimed.rows().stream().map(OutboxEntry::id).min(Long::compare).orElse(null));
        if (!claimed.takenOver().isEmpty()) {
            Set<Long> takenOver = Set.copyOf(claimed.takenOver());
            lossListeners.forEach(l -> l.claimsTakenOver(takenOver));
        }
        return claimed.rows().stream().sorted(Comparator.comparingLong(OutboxEntry::id)).map(EntryRows::claimOf)
                .map(claim -> claim.withExpiresAt(localDeadline)).toList();
    }

    /**
     * The {@code database} backend tells {@code listener} which rows its claims took over from claims that had
     * expired unfinished ({@link ClaimLossListener#claimsTakenOver}; PostgreSQL and MariaDB, read in the claim's
     * own statements). Its claims rest on no external lease, so nothing else is ever reported.
     */
    @Override
    public void addClaimLossListener(ClaimLossListener listener) {
        lossListeners.add(Objects.requireNonNull(listener, "listener"));
    }

    /**
     * Renews the database backend's claims by {@code leaseDuration}: with the database's clock judging, the
     * rows get {@code now() + leaseDuration} by that clock and the returned claims a local deadline taken
     * before the statement was sent.
     */
    @Override
    public List<OutboxClaim> renewClaims(List<OutboxClaim> claims, Duration leaseDuration) {
        Instant localDeadline = EntryRows.micros(clock.instant().plus(leaseDuration));
        if (!databaseJudges) {
            return extendClaims(claims, localDeadline);
        }
        requireClaims("renewClaims");
        if (claims.isEmpty()) {
            return List.of();
        }
        Set<Long> moved = sql.run("renew claims", c -> dialect.extendClaims(c, claims, null, leaseDuration.toMillis()));
        return claims.stream().filter(cl -> moved.contains(cl.entryId())).map(cl -> cl.withExpiresAt(localDeadline)).toList();
    }

    /** "Now" as the statements take it: null when the database's clock judges (they use their own now()). */
    public Instant judgedNow() {
        return databaseJudges ? null : EntryRows.micros(clock.instant());
    }

    /** Whether the database's clock judges expiries (the default) rather than an explicit clock. */
    public boolean databaseJudges() {
        return databaseJudges;
    }

    /** Where this store's local deadlines come from: give the drain (and a slot store) the same clock. */
    public java.time.Clock localClock() {
        return clock;
    }

    // ---- the fenced store under external leases ------------------------------------------------

    /**
     * A sample of the eligible ids, lapsed claims first, spread over the window the batch, the
     * candidate spread and the query's stripe call for: see {@link ClaimCandidates}.
     */
    @Override
    public List<Long> findClaimCandidateIds(CandidateQuery query) {
        requireClaims("findClaimCandidateIds");
        return claimCandidates.find(query, judgedNow());
    }

    @Override
    public List<OutboxEntry> findEligible(ClaimSelection selection, Collection<Long> ids) {
        requireClaims("findEligible");
        if (ids.isEmpty()) {
            return List.of();
        }
        Instant now = judgedNow();
        return sql.run("read granted rows", c -> dialect.selectEligibleByIds(c, selection, now, ids));
    }

    @Override
    public ClaimRecording recordClaims(ClaimSelection selection, List<ClaimGrant> grants) {
        requireClaims("recordClaims");
        return claimRecorder.record(selection, judgedNow(), grants);
    }

    @Override
    public CompletionOutcome complete(OutboxClaim claim, Completion completion) {
        return completeAll(List.of(new ClaimCompletion(claim, completion))).get(0);
    }

    @Override
    public List<CompletionOutcome> completeAll(List<ClaimCompletion> completions) {
        requireClaims("complete");
        return completionOutcomes.completeAll("complete claims", completions, dialect::completeAll,
                CompletionOutcome::refusalFor);
    }

    @Override
    public List<CompletionOutcome> completeAllFenced(List<ClaimCompletion> completions) {
        requireClaims("completeAllFenced");
        Instant now = judgedNow();
        return completionOutcomes.completeAll("complete lean claims", completions,
                (c, cs) -> dialect.completeAllFenced(c, cs, now), CompletionOutcome::fencedRefusalFor);
    }

    @Override
    public List<OutboxClaim> extendClaims(List<OutboxClaim> claims, Instant expiresAt) {
        requireClaims("extendClaims");
        if (claims.isEmpty()) {
            return List.of();
        }
        Instant at = EntryRows.micros(expiresAt);
        Set<Long> moved = sql.run("extend claims", c -> dialect.extendClaims(c, claims, at, 0));
        return claims.stream().filter(cl -> moved.contains(cl.entryId())).map(cl -> cl.withExpiresAt(at)).toList();
    }

    @Override
    public long highestFenceHighWater() {
        if (!claimLeases) {
            return 0;
        }
        return sql.run("read the highest fence", dialect::highestFenceHighWater);
    }

    // ---- plumbing ------------------------------------------------------------------------------------

    private void requireClaims(String operation) {
        if (!claimLeases) {
            throw new IllegalStateException(operation + " needs claim leases, but this store over " + table()
                    + " was opened with useClaimLeases = false");
        }
    }

    private static void requirePositive(int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be positive, was " + limit);
        }
    }

    /** Configures and opens a {@link JdbcOutboxStore}; {@link #open()} checks the schema. */
    public static final class Builder {
        private final DataSource dataSource;
        private TableName table = TableName.DEFAULT;
        private java.time.Clock clock = dev.leasebox.lease.MonotonicClock.system();
        private boolean databaseJudges = true;
        private boolean useClaimLeases = true;
        private int candidateSpread = 1;
        private java.time.Duration queueHeadRescan = DEFAULT_QUEUE_HEAD_RESCAN;
        private boolean durableClaimRecords = true;
        private DatabaseKind kind;

        private Builder(DataSource dataSource) {
            this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        }

        /** The table, {@code name} or {@code schema.name}; default {@code leasebox_outbox}. */
        public Builder table(String name) {
            this.table = TableName.parse(name);
            return this;
        }

        public Builder table(TableName name) {
            this.table = Objects.requireNonNull(name, "table");
            return this;
        }

        /**
         * Judge every expiry and due time by {@code clock} instead of the database's clock, and take local
         * deadlines from it too: for tests and simulations that move time themselves. Workers on several
         * machines must not use it (their clocks would judge each other's claims); leave it out.
         */
        public Builder clock(java.time.Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            this.databaseJudges = false;
            return this;
        }

        /**
         * Where local claim deadlines come from while the database's clock judges expiries; default
         * {@link dev.leasebox.lease.MonotonicClock#system()}, which wall-clock steps do not move. Give the
         * drain the same clock.
         */
        public Builder localClock(java.time.Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            this.databaseJudges = true;
            return this;
        }

        /**
         * Default true. False drains a V1 table without claims: several workers may then emit the
         * same entry twice, so run one worker or disjoint partitions.
         */
        public Builder useClaimLeases(boolean useClaimLeases) {
            this.useClaimLeases = useClaimLeases;
            return this;
        }

        /**
         * How many times the batch size {@link #findClaimCandidateIds} reads to choose a random batch
         * from (1..{@value #MAX_CANDIDATE_SPREAD}). Default 1: strictly the oldest eligible rows. 4 suits many workers sharing
         * one outbox through an external lease manager.
         */
        public Builder candidateSpread(int spread) {
            if (spread < 1 || spread > MAX_CANDIDATE_SPREAD) {
                throw new IllegalArgumentException("candidate spread must be in 1.." + MAX_CANDIDATE_SPREAD + ", was " + spread);
            }
            this.candidateSpread = spread;
            return this;
        }

        /**
         * How often a claim or candidate read starts again from the beginning of the claim queue instead of
         * where the last one found its head (default {@value #DEFAULT_QUEUE_HEAD_RESCAN_MILLIS} ms; zero: every
         * read starts from the beginning). Reading from the head skips the index entries of rows finalized
         * since the last vacuum, which a busy outbox piles up by the hundred thousand between autovacuum
         * runs; the rescan finds the rows that became eligible again below it (retries whose time came,
         * lapsed claims, rows whose enqueueing transaction committed late), which therefore wait up to this
         * long beyond their time. Judged by the store's local clock.
         */
        public Builder queueHeadRescan(java.time.Duration rescan) {
            Objects.requireNonNull(rescan, "rescan");
            if (rescan.isNegative() || rescan.compareTo(java.time.Duration.ofMinutes(10)) > 0) {
                throw new IllegalArgumentException("Invalid queue head rescan " + rescan + ": must be between 0 and 10 minutes");
            }
            this.queueHeadRescan = rescan;
            return this;
        }

        /**
         * Commits {@link #recordClaims} with PostgreSQL's {@code synchronous_commit = off} (that transaction
         * only): the claim record does not wait for its WAL flush. For measurements of what that flush costs
         * ({@code leasebox bench --claim-records relaxed}); off by default and not offered by
         * {@code Leasebox.drain}. A claim record lost in a database crash costs at most a duplicate
         * emission, since completions are checked against the token the row carries; completions stay
         * durable.
         */
        public Builder claimRecordsWithoutWalFlush() {
            this.durableClaimRecords = false;
            return this;
        }

        /** The database kind, when it should not be detected from the connection's metadata. */
        public Builder databaseKind(DatabaseKind kind) {
            this.kind = Objects.requireNonNull(kind, "kind");
            return this;
        }

        /**
         * Connects once and checks the schema, failing with one line when the database is
         * unreachable, the table is missing, or claim columns are missing while claims are wanted.
         */
        public JdbcOutboxStore open() {
            SqlDialect dialect = SchemaCheck.check(dataSource, table, kind, useClaimLeases);
            return new JdbcOutboxStore(this, dialect);
        }
    }
}
