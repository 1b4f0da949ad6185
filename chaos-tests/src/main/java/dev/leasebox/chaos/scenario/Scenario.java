package dev.leasebox.chaos.scenario;

import dev.leasebox.chaos.fault.ClockSkew;
import dev.leasebox.chaos.fault.ClockStep;
import dev.leasebox.chaos.fault.ConnectionBlip;
import dev.leasebox.chaos.fault.CoordinatorFailover;
import dev.leasebox.chaos.fault.CoordinatorRestart;
import dev.leasebox.chaos.fault.DatabaseConnectionsKill;
import dev.leasebox.chaos.fault.DatabaseRestart;
import dev.leasebox.chaos.fault.FailedUnlock;
import dev.leasebox.chaos.fault.FaultInjector;
import dev.leasebox.chaos.fault.FrozenTaker;
import dev.leasebox.chaos.fault.KafkaBrokerRestart;
import dev.leasebox.chaos.fault.MixedFleet;
import dev.leasebox.chaos.fault.NetworkPartition;
import dev.leasebox.chaos.fault.ProviderFaults;
import dev.leasebox.chaos.fault.RowToPartitionSwitch;
import dev.leasebox.chaos.harness.Granularity;
import dev.leasebox.chaos.fault.WorkerKill;
import dev.leasebox.chaos.fault.WorkerPause;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * A named fault schedule; a scenario run is a scenario on a backend with a workload (entries
 * enqueued while it runs, two workers, and more where the fault needs a third party) for a duration.
 *
 * @param name           the name on the command line
 * @param proves         what a passing run shows, in one sentence
 * @param injector       a fresh injector per run
 * @param needsExternal  true when the fault acts on a coordinator separate from the database
 * @param fencing        true when the fault exercises the fence (and {@code --unsafe-no-fence} must fail it)
 * @param ownDatabase    the run needs a PostgreSQL server of its own ({@code LocalPostgres}): the fault stops it
 * @param kafka          the workers send to a Kafka broker of the run's own ({@code --provider kafka:…}), and the
 *                       checker judges the deliveries from what its topic holds instead of the jdbc-inbox
 */
public record Scenario(String name, String proves, Supplier<FaultInjector> injector, boolean needsExternal,
                       boolean fencing, boolean ownDatabase, boolean kafka) {

    /** A scenario on the shared PostgreSQL ({@link RunSettings#jdbcBaseUrl()}). */
    public Scenario(String name, String proves, Supplier<FaultInjector> injector, boolean needsExternal, boolean fencing) {
        this(name, proves, injector, needsExternal, fencing, false, false);
    }

    /** A scenario whose workers write the jdbc-inbox. */
    public Scenario(String name, String proves, Supplier<FaultInjector> injector, boolean needsExternal, boolean fencing,
                    boolean ownDatabase) {
        this(name, proves, injector, needsExternal, fencing, ownDatabase, false);
    }

    /** The migration scenario: recorded row claims, then a fleet with lean partition claims. */
    public static final String ROW_TO_PARTITION = "row-to-partition";

    /** The taker held in-process between its read of an expired lease and its takeover: ZooKeeper's window. */
    public static final String FROZEN_TAKER = "frozen-taker";

    /** Unlocks failed on the lock's owner thread: Hazelcast's FencedLock is owned by a session and a thread. */
    public static final String FAILED_UNLOCK = "failed-unlock";

    /** The cut shorter than the coordinator's session: only coordinators with sessions. */
    public static final String SHORT_PARTITION = "short-partition";

    /** The connection closed and refused for less than the session and the lease, while emissions are in flight. */
    public static final String CONNECTION_BLIP = "connection-blip";

    /** Packets to the coordinator dropped past a renewal interval, within the lease, while emissions are in flight. */
    public static final String RENEWAL_CUT = "renewal-cut";

    public static final List<Scenario> ALL = List.of(
            new Scenario("worker-kill", "A worker SIGKILLed while holding claims loses nothing: its claims are "
                    + "reclaimed by others after expiry, and every duplicate is explained by that expiry.",
                    WorkerKill::new, false, false),
            new Scenario("worker-pause", "A worker frozen (SIGSTOP) past its lease while sending completions is fenced "
                    + "when it wakes: its stale completions are refused, nothing is lost.",
                    WorkerPause::new, false, true),
            new Scenario("coordinator-restart", "Killing and restarting the coordinator (Redis empty, a ZooKeeper "
                    + "follower then leader, a Hazelcast CP member) loses no entry and never lets a fence go backwards.",
                    CoordinatorRestart::new, true, false),
            new Scenario("partition", "A worker cut off from the coordinator (but not the database) stops finalizing "
                    + "what it can no longer prove it holds; others take over; nothing is lost or written stale.",
                    NetworkPartition::pastSession, true, true),
            new Scenario(SHORT_PARTITION, "A worker cut off from the coordinator for longer than its lease but shorter "
                    + "than the coordinator's session, then healed: the coordinator still counts it alive, so it must stop "
                    + "finalizing what it cannot prove it holds, and after the heal never takes a lease again under a fence "
                    + "it already used; nothing is lost or written stale.",
                    NetworkPartition::withinSession, true, true),
            new Scenario(CONNECTION_BLIP, "A worker's connections to the coordinator closed and refused for 1.5 s, up to "
                    + "three times while its emissions are in flight, then restored on the same session (no session expires, "
                    + "no lease lapses): no entry is handed out again while its earlier emission may be in flight, no two "
                    + "emissions of one entry carry one fence, nothing is lost or written stale.",
                    ConnectionBlip::withinSession, true, false),
            new Scenario(RENEWAL_CUT, "A worker's packets to the coordinator silently dropped for longer than a renewal "
                    + "interval and shorter than the lease, up to three times while its emissions are in flight: a missed "
                    + "renewal never lets an entry be handed out again while its emission may be in flight, no two "
                    + "emissions of one entry carry one fence, nothing is lost or written stale.",
                    ConnectionBlip::pastRenewal, true, false),
            new Scenario(FROZEN_TAKER, "A taker held (in-process, by a Byteman rule) between its read of an expired "
                    + "lease and its takeover while a third worker takes the same lease over, then let go: it must not "
                    + "remove the newer holder's lease; judged by real time, no entry has two holders at once, and nothing "
                    + "is lost.",
                    FrozenTaker::new, true, false),
            new Scenario(FAILED_UNLOCK, "Unlocks that fail on the lock's owner thread without reaching the coordinator "
                    + "(a Byteman rule), while a failing downstream leaves rows to retry: the lock stays held, so it must "
                    + "never be re-entered under the fence it already handed out, and its keys must come free again; "
                    + "nothing is lost or written stale.",
                    FailedUnlock::new, true, false),
            new Scenario("provider-faults", "A failing, slow downstream (503s, timeouts after delivery) forces retries "
                    + "and dead letters; every entry still ends DELIVERED (and in the inbox) or DEAD_LETTERED.",
                    ProviderFaults::new, false, false),
            new Scenario("clock-skew", "A worker whose wall clock steps two leases ahead while it holds claims may "
                    + "cause duplicates, but no stale completion is accepted and nothing is lost.",
                    ClockSkew::new, false, true),
            new Scenario("clock-step", "A holder whose wall clock steps two leases back and a taker whose clock steps "
                    + "two leases ahead, the holder then frozen past its lease: judged by real time, no lease is taken "
                    + "while it stands, no stale completion is accepted, nothing is lost.",
                    ClockStep::new, false, true),
            new Scenario("db-connections-kill", "Every worker connection terminated by the database "
                    + "(pg_terminate_backend) in the middle of a batch, three times: the workers reconnect by themselves, "
                    + "nothing is lost or written stale.",
                    DatabaseConnectionsKill::new, false, false),
            new Scenario("db-restart", "The outbox's PostgreSQL (a server of the run's own) shut down immediately while "
                    + "claims are held and started again 2 s later: the workers recover without a restart, nothing is "
                    + "lost or written stale.",
                    DatabaseRestart::new, false, false, true),
            new Scenario("coordinator-failover", "Redis primary stopped and a replica promoted (REPLICAOF NO ONE) "
                    + "before it has every write: leases and fences the primary granted may be forgotten, but the "
                    + "row's fence guard refuses every stale finalization and nothing is lost.",
                    CoordinatorFailover::new, true, false),
            new Scenario("kafka-broker-restart", "Workers sending with --provider kafka:… while the broker is killed "
                    + "and kept down past the delivery timeout: sends time out and are retried, and the topic, read back "
                    + "by the checker, holds every DELIVERED entry, no superseded fence, and repeats only of retried sends.",
                    KafkaBrokerRestart::new, false, false, false, true),
            new Scenario(ROW_TO_PARTITION, "A table drained in row mode while every emission fails (entries left "
                    + "RETRYABLE with raised high-water marks), then by a fleet with lean partition claims that replaces it: "
                    + "every row is drained, none written stale, and the new fleet emits at most one batch per worker "
                    + "beyond one emission per entry.",
                    RowToPartitionSwitch::new, false, false),
            new Scenario("mixed-fleet", "Workers of another claim style (lean partition claims; through an external "
                    + "backend, lean row claims; beside a lean fleet, recorded row claims) started beside the running "
                    + "fleet: each is refused at its start with one line naming the flags to change, or, if admitted, "
                    + "judged by its own style; the fleet drains on, nothing is lost or written stale.",
                    MixedFleet::new, false, false));

    /**
     * Why this scenario cannot run with the workers' claim options {@code g}, in one line naming the flag; empty when
     * it can. The migration starts with recorded row claims (the second fleet's style is its own).
     */
    public String refusedWith(Granularity g) {
        if (FROZEN_TAKER.equals(name) && g.isPartition()) {
            return name + " holds a taker of row leases: drop --granularity partition";
        }
        if (ROW_TO_PARTITION.equals(name) && (g.isPartition() || g.isLeanRows())) {
            return name + " starts with recorded row claims and switches to lean partition claims itself: drop "
                    + (g.isPartition() ? "--granularity partition" : "--claim-mode lean");
        }
        return "";
    }

    /**
     * The lease this scenario's workers run with when {@code asked} is given: the connection faults need at least
     * {@link ConnectionBlip#LEAST_LEASE}, so that an interruption and a reconnect fit inside it.
     */
    public Duration lease(Duration asked) {
        boolean connectionFault = CONNECTION_BLIP.equals(name) || RENEWAL_CUT.equals(name);
        return connectionFault && asked.compareTo(ConnectionBlip.LEAST_LEASE) < 0 ? ConnectionBlip.LEAST_LEASE : asked;
    }

    public static Optional<Scenario> named(String name) {
        return ALL.stream().filter(s -> s.name().equals(name)).findFirst();
    }

    public static List<String> names() {
        return ALL.stream().map(Scenario::name).toList();
    }

    /**
     * Why this scenario does not apply to {@code backend}, or empty when it does. A tool missing here (nft,
     * libfaketime, PostgreSQL's binaries) is not a reason: the run then fails with one line naming what to install.
     */
    public String unavailableReason(String backend) {
        if (needsExternal && "database".equals(backend)) {
            return "the database backend has no coordinator apart from the outbox database";
        }
        if (SHORT_PARTITION.equals(name) && !("zookeeper".equals(backend) || "hazelcast".equals(backend))) {
            return "Redis has no session that outlives a lease (a lease lapses at its ttl): partition covers it";
        }
        if (FROZEN_TAKER.equals(name) && !"zookeeper".equals(backend)) {
            return "only ZooKeeper takes an expired lease over in two steps (a read, then writes): Redis and the database "
                    + "do it in one statement, Hazelcast's CP group in one operation";
        }
        if (FAILED_UNLOCK.equals(name) && !"hazelcast".equals(backend)) {
            return "only Hazelcast's locks belong to a thread of a live session, so that a failed unlock leaves them held "
                    + "by a worker that forgot them: elsewhere a lease not released lapses at its ttl (worker-kill covers it)";
        }
        if ("coordinator-failover".equals(name) && !"redis".equals(backend)) {
            return "a failover to a replica that missed writes is Redis's (ZooKeeper and Hazelcast CP keep a quorum; "
                    + "coordinator-restart covers them)";
        }
        return "";
    }
}
