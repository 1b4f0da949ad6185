package dev.leasebox.jdbc.lease;

import dev.leasebox.jdbc.DatabaseKind;
import dev.leasebox.jdbc.JdbcOutboxException;
import dev.leasebox.jdbc.JdbcUrls;
import dev.leasebox.jdbc.TableName;
import dev.leasebox.jdbc.dialect.EntryRows;
import dev.leasebox.jdbc.dialect.SqlDialect;
import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseLoss;
import dev.leasebox.lease.LeaseLossListener;
import dev.leasebox.lease.LeaseManager;
import dev.leasebox.lease.LeaseManagerException;
import dev.leasebox.lease.LeaseRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Leases held in the database itself, in the V3 table {@code <table>_leases} (one row per key ever
 * leased: key, owner, fence, expiry) with fences from the sequence {@code <table>_lease_fence_seq}:
 * the lease manager of the {@code database} backend in partition-lease mode, where workers lease a
 * few hundred {@code slot-<n>} keys. It passes {@code LeaseManagerContract} on PostgreSQL, MariaDB and H2.
 *
 * <h2>Guarantees</h2>
 * <ul>
 *   <li><b>One statement per call.</b> {@link #acquire}, {@link #renew} and {@link #release} each run
 *       exactly one SQL statement, atomic under auto-commit, whatever the number of keys (PostgreSQL:
 *       arrays joined with {@code unnest}, {@code INSERT … ON CONFLICT DO UPDATE … RETURNING} and
 *       {@code UPDATE … RETURNING}; H2: {@code MERGE … USING UNNEST} inside {@code FINAL TABLE}).
 *       Empty calls run none.</li>
 *   <li><b>Expiry is the database's clock's.</b> A lease is held while the database's {@code now()} is
 *       before its {@code expires_at}, which a grant or renewal writes as {@code now() + ttl} by the same
 *       clock: workers whose clocks disagree judge every lease alike. The holder's
 *       {@link Lease#localDeadline()} comes from a monotonic clock read before the statement is sent, so it
 *       ends no later than the row's expiry (whatever the wall clock does) as long as the database's clock
 *       does not run fast against it by more than the safety margin. A manager built with an explicit
 *       {@code clock(...)} (tests) judges by that clock and passes every instant as a parameter; an
 *       expiry is then rounded up to the microsecond, so the database never expires a lease before its
 *       holder's local deadline.</li>
 *   <li><b>Fences strictly grow per key</b>, across expiry, release and re-grant: a grant takes a new
 *       sequence value, rows are never deleted (a release sets {@code expires_at} to 1970-01-01, which
 *       frees the key for every clock), and a re-grant writes {@code GREATEST(new value, row's fence + 1)},
 *       so neither a grant whose sequence value was taken before a concurrent grant of the same key nor
 *       a sequence reset by hand can go back (as the {@code database} claim backend does for rows).
 *       The sequence must keep PostgreSQL's default {@code CACHE 1} (V3 creates it so): with a cache,
 *       sessions would hand out pre-fetched values below a raised floor.</li>
 *   <li><b>Stale callers change nothing.</b> Renew and release write only rows that still carry the
 *       lease's owner <em>and</em> fence and have not expired; everything else is absent from the
 *       result. A renewal's missing leases are reported to the {@link LeaseLossListener}s
 *       ({@link LeaseLoss.Cause#RENEWAL_REFUSED}) on the calling thread before {@code renew} returns.</li>
 *   <li><b>No deadlocks between calls.</b> On PostgreSQL every statement locks lease rows in
 *       {@code lease_key} order.</li>
 *   <li><b>{@link #raiseFenceFloor} is atomic</b> with respect to every grant: on PostgreSQL, grants hold
 *       a shared transaction-scoped advisory lock (class {@code pg_class}, object the sequence's oid)
 *       while they draw fences, and raising the floor takes it exclusively around its read and
 *       {@code setval}; on H2, all lease statements are serialized within the JVM. (An application
 *       that took the same two-key advisory lock would only delay grants, never break them.)</li>
 * </ul>
 *
 * <p>The table holds one row per distinct key ever leased, which suits the bounded {@code slot-<n>}
 * key space this manager is for; it is not meant for one key per outbox row. On H2 every lease
 * statement of one database and table is serialized within this JVM (where an embedded H2 lives); use
 * PostgreSQL for workers in several processes.
 *
 * <p>Each call borrows one connection from the {@link DataSource} (auto-commit restored) and returns
 * it. The data source stays the caller's: {@link #close()} does not close it. A database error becomes
 * a {@link LeaseManagerException} naming the table and the (password-redacted) address tried.
 * Thread-safe; one instance may serve many owners, as one database serves many nodes.
 */
public final class JdbcLeaseManager implements LeaseManager {

    private static final Logger log = LoggerFactory.getLogger(JdbcLeaseManager.class);

    private final DataSource dataSource;
    private final LeaseTable table;
    private final Clock clock;
    /** True unless an explicit clock was given: the database's clock judges and writes expiries. */
    private final boolean databaseJudges;
    private final String where;
    private final List<LeaseLossListener> listeners = new CopyOnWriteArrayList<>();
    private volatile boolean closed;

    private JdbcLeaseManager(DataSource dataSource, LeaseTable table, Clock clock, boolean databaseJudges, String where) {
        this.dataSource = dataSource;
        this.table = table;
        this.clock = clock;
        this.databaseJudges = databaseJudges;
        this.where = where;
    }

    /** Starts configuring a manager over the lease table reachable through {@code dataSource}. */
    public static Builder builder(DataSource dataSource) {
        return new Builder(dataSource);
    }

    @Override
    public List<Lease> acquire(LeaseRequest request) {
        Objects.requireNonNull(request, "request");
        if (request.keys().isEmpty()) {
            return List.of();
        }
        Instant sent = EntryRows.micros(clock.instant());
        Instant now = databaseJudges ? null : sent;
        Instant expiresAt = databaseJudges ? null : expiry(sent, request.ttl());
        List<String> wanted = request.limited() ? freeKeysUpToLimit(request, now) : request.keys();
        if (wanted.isEmpty()) {
            return List.of();
        }
        Map<String, Long> fences = run("acquire", c -> table.acquire(c, wanted, request.owner(), expiresAt,
                request.ttl().toMillis(), now));
        List<Lease> granted = new ArrayList<>(fences.size());
        for (String key : request.keys()) {
            Long fence = fences.get(key);
            if (fence != null) {
                granted.add(request.grant(key, fence, sent));
            }
        }
        return granted;
    }

    /**
     * A limited request's keys to ask for: the first free ones up to the limit, read first (one more
     * statement, only for limited requests, which the claim path's slot leases never make).
     */
    private List<String> freeKeysUpToLimit(LeaseRequest request, Instant now) {
        Set<String> held = run("read held keys", c -> table.held(c, request.keys(), now));
        return request.keys().stream().filter(k -> !held.contains(k)).limit(request.maxGrants()).toList();
    }

    @Override
    public List<Lease> renew(Collection<Lease> leases) {
        Objects.requireNonNull(leases, "leases");
        if (leases.isEmpty()) {
            return List.of();
        }
        Instant sent = EntryRows.micros(clock.instant());
        Instant now = databaseJudges ? null : sent;
        List<Lease> distinct = distinctGrants(leases);
        List<Instant> expiries = distinct.stream().map(l -> databaseJudges ? null : expiry(sent, l.ttl())).toList();
        Set<LeaseTable.Row> renewed = run("renew", c -> table.renew(c, distinct, expiries, now));
        List<Lease> held = new ArrayList<>();
        List<Lease> lost = new ArrayList<>();
        for (Lease lease : leases) {
            if (renewed.contains(LeaseTable.Row.of(lease))) {
                held.add(lease.renewed(sent));
            } else {
                lost.add(lease);
            }
        }
        if (!lost.isEmpty()) {
            report(new LeaseLoss(lost, LeaseLoss.Cause.RENEWAL_REFUSED, describe()
                    + ": the lease expired, was released or is held by another grant"));
        }
        return held;
    }

    @Override
    public List<Lease> release(Collection<Lease> leases) {
        Objects.requireNonNull(leases, "leases");
        if (leases.isEmpty()) {
            return List.of();
        }
        Instant now = databaseJudges ? null : EntryRows.micros(clock.instant());
        List<Lease> distinct = distinctGrants(leases);
        Set<LeaseTable.Row> released = run("release", c -> table.release(c, distinct, now));
        List<Lease> out = new ArrayList<>();
        for (Lease lease : leases) {
            if (released.contains(LeaseTable.Row.of(lease))) {
                out.add(lease);
            }
        }
        return out;
    }

    /**
     * Moves {@code <table>_lease_fence_seq} so that its next value is above {@code floor}, atomically
     * with respect to every grant (see the class comment); never moves it back. Always supported:
     * returns true. The database's sequence does not lose values by itself; it falls behind the
     * outbox's fences only after a restore from an older backup or a hand-made reset. Two statements
     * on one connection: on PostgreSQL in one transaction (the exclusive advisory lock, then a
     * conditional {@code setval}), on H2 under the in-JVM lock (a {@code NEXT VALUE}, then
     * {@code RESTART WITH floor + 1} when needed).
     *
     * @throws IllegalArgumentException when {@code floor} is negative or {@link Long#MAX_VALUE}
     */
    @Override
    public boolean raiseFenceFloor(long floor) {
        if (floor < 0 || floor == Long.MAX_VALUE) {
            throw new IllegalArgumentException("fence floor must be in 0.." + (Long.MAX_VALUE - 1) + ", was " + floor);
        }
        boolean raised = run("raise fence floor", c -> table.raiseFenceFloor(c, floor));
        if (raised) {
            log.warn("Raised the fence sequence {} above {} at {}: it was behind the fences the outbox recorded "
                    + "(restored from an older backup, or reset by hand?)", table.fenceSequence(), floor, where);
        }
        return true;
    }

    @Override
    public void addLeaseLossListener(LeaseLossListener listener) {
        listeners.add(Objects.requireNonNull(listener, "listener"));
    }

    /** {@code database leases in <table>_leases at <redacted jdbc url>}. */
    @Override
    public String describe() {
        return "database leases in " + table.leaseTable() + " at " + where;
    }

    /** Refuses further calls; the data source stays open (it is the caller's) and leases run out at expiry. */
    @Override
    public void close() {
        closed = true;
    }

    // ---- plumbing ------------------------------------------------------------------------------------

    /** {@code now + ttl}, rounded up to the microsecond the database stores. */
    private static Instant expiry(Instant now, Duration ttl) {
        Instant exact = now.plus(ttl);
        Instant stored = EntryRows.micros(exact);
        return stored.equals(exact) ? stored : stored.plusNanos(1_000);
    }

    /** One lease per grant (key, owner, fence): a MERGE must not meet two source rows for one target row. */
    private static List<Lease> distinctGrants(Collection<Lease> leases) {
        Map<LeaseTable.Row, Lease> distinct = new LinkedHashMap<>();
        for (Lease lease : leases) {
            distinct.putIfAbsent(LeaseTable.Row.of(lease), lease);
        }
        return List.copyOf(distinct.values());
    }

    private void report(LeaseLoss loss) {
        for (LeaseLossListener listener : listeners) {
            try {
                listener.leasesLost(loss);
            } catch (RuntimeException e) {
                log.warn("A lease loss listener failed on {}", loss, e);
            }
        }
    }

    @FunctionalInterface
    private interface SqlCall<T> {
        T run(Connection c) throws SQLException;
    }

    private <T> T run(String operation, SqlCall<T> call) {
        if (closed) {
            throw new IllegalStateException(describe() + " is closed; " + operation + " refused");
        }
        Connection c = LeaseTableAccess.connect(dataSource, where, operation);
        try (c) {
            if (!c.getAutoCommit()) {
                c.setAutoCommit(true);
            }
            return call.run(c);
        } catch (SQLException e) {
            throw new LeaseManagerException("Database lease " + operation + " on " + table.leaseTable() + " at " + where
                    + " failed: " + JdbcUrls.rootMessage(e) + "; " + LeaseTableAccess.whatToDo(table, e), e);
        }
    }

    /** Configures and opens a {@link JdbcLeaseManager}; {@link #open()} checks the schema. */
    public static final class Builder {
        private final DataSource dataSource;
        private TableName table = TableName.DEFAULT;
        private Clock clock = dev.leasebox.lease.MonotonicClock.system();
        private boolean databaseJudges = true;
        private DatabaseKind kind;

        private Builder(DataSource dataSource) {
            this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        }

        /** The outbox table whose V3 lease table is used ({@code <name>_leases}); default {@code leasebox_outbox}. */
        public Builder table(TableName name) {
            this.table = Objects.requireNonNull(name, "table");
            return this;
        }

        /** As {@link #table(TableName)}, from {@code name} or {@code schema.name}. */
        public Builder table(String name) {
            this.table = TableName.parse(name);
            return this;
        }

        /**
         * Judge every lease's expiry by {@code clock} instead of the database's clock, and take local deadlines from
         * it too: for tests that move time themselves. Workers on several machines must not use it; leave it out.
         */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            this.databaseJudges = false;
            return this;
        }

        /**
         * Where local lease deadlines come from while the database's clock judges expiries; default
         * {@link dev.leasebox.lease.MonotonicClock#system()}.
         */
        public Builder localClock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            this.databaseJudges = true;
            return this;
        }

        /** The database kind, when it should not be detected from the connection's metadata. */
        public Builder databaseKind(DatabaseKind kind) {
            this.kind = Objects.requireNonNull(kind, "kind");
            return this;
        }

        /**
         * Connects once and checks that the lease table and its fence sequence exist, failing with one
         * line naming the address and the V3 script to apply. Reads only; never creates anything.
         *
         * @throws LeaseManagerException when the database is unreachable or the V3 objects are missing
         */
        public JdbcLeaseManager open() {
            String where = JdbcUrls.describe(dataSource);
            LeaseTable leases;
            try (Connection c = LeaseTableAccess.connect(dataSource, where, "open")) {
                DatabaseKind detected = kind != null ? kind : DatabaseKind.of(c);
                leases = new LeaseTable(SqlDialect.of(detected, table));
                LeaseTableAccess.check(leases, c, where);
            } catch (SQLException e) {
                throw new LeaseManagerException("Cannot check the lease table " + table + "_leases at " + where + ": "
                        + JdbcUrls.rootMessage(e), e);
            } catch (JdbcOutboxException e) {
                throw new LeaseManagerException(e.getMessage(), e);
            }
            JdbcLeaseManager manager = new JdbcLeaseManager(dataSource, leases, clock, databaseJudges, where);
            log.info("Opened {}", manager.describe());
            return manager;
        }
    }
}
