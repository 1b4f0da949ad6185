package dev.leasebox.chaos.history;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * One line of the harness's fault log: a fault begun or ended, on the common clock.
 *
 * @param t      wall-clock millis of the harness (the common clock: same machine as the database)
 * @param fault  what was done: {@code kill}, {@code pause}, {@code resume}, {@code coordinator-kill},
 *               {@code coordinator-start}, {@code partition}, {@code heal}, {@code provider-faults},
 *               {@code provider-healthy}, {@code clock-skew},
 *               {@code clock-step}, {@code coordinator-data-loss}, {@code db-connections-killed},
 *               {@code db-restart}, {@code db-start}, {@code coordinator-failover}, {@code connection-blip},
 *               {@code connection-cut}, {@code provider-slow}
 * @param target whom it was done to (a worker's owner name, a server's name)
 * @param detail how (signal, rule, offset)
 */
public record FaultEvent(long t, String fault, String target, String detail) {

    public static final String KILL = "kill";
    public static final String PAUSE = "pause";
    public static final String RESUME = "resume";
    public static final String COORDINATOR_KILL = "coordinator-kill";
    public static final String COORDINATOR_START = "coordinator-start";
    public static final String PARTITION = "partition";
    public static final String HEAL = "heal";
    public static final String PROVIDER_FAULTS = "provider-faults";
    public static final String PROVIDER_HEALTHY = "provider-healthy";
    public static final String CLOCK_SKEW = "clock-skew";
    /** The coordinator came back without the leases and fences it had granted (Redis restarted empty). */
    public static final String COORDINATOR_DATA_LOSS = "coordinator-data-loss";
    /** Wall clocks stepped (holder back, taker forward). */
    public static final String CLOCK_STEP = "clock-step";
    /** The workers' database connections terminated ({@code pg_terminate_backend}). */
    public static final String DB_CONNECTIONS_KILLED = "db-connections-killed";
    /** The outbox's PostgreSQL server stopped (it is started again: {@link #DB_START}). */
    public static final String DB_RESTART = "db-restart";
    /** The outbox's PostgreSQL server accepting connections again. */
    public static final String DB_START = "db-start";
    /** The coordinator's primary stopped and a replica promoted in its place. */
    public static final String COORDINATOR_FAILOVER = "coordinator-failover";
    /** The run's fleet stopped gracefully and replaced by workers of another claim style (not a fault by itself). */
    public static final String FLEET_SWITCH = "fleet-switch";
    /**
     * A worker thread held at an in-process fault point (a Byteman rule), before it was granted anything: it ends no
     * lease, so it explains no repeat delivery.
     */
    public static final String HOLD = "hold";
    /** The thread held at a fault point let go ({@link #HOLD}). */
    public static final String RELEASE = "release";
    /** A call of a worker made to fail at an in-process fault point (a Byteman rule). */
    public static final String CALL_FAILED = "call-failed";
    /** A worker of another claim style started beside the running fleet. */
    public static final String FLEET_MIX = "fleet-mix";
    /** That worker refused at its start by the table's claim-style registry. */
    public static final String FLEET_MIX_REFUSED = "fleet-mix-refused";
    /** That worker admitted: it runs on, judged by its own claim style. */
    public static final String FLEET_MIX_ADMITTED = "fleet-mix-admitted";
    /**
     * A worker's connections to the coordinator closed and every packet it sends there answered with a reset, for
     * less than its session and its lease: it reconnects on the same session once {@link #HEAL}ed, no lease lapses.
     */
    public static final String CONNECTION_BLIP = "connection-blip";
    /**
     * A worker's packets to the coordinator silently dropped for longer than a renewal interval and shorter than the
     * lease, until {@link #HEAL}ed: renewals are missed, and a lease can lapse while a call waits out the cut.
     */
    public static final String CONNECTION_CUT = "connection-cut";
    /** Every emission slowed (no error): emissions stay in flight across a fault. Not a fault by itself. */
    public static final String PROVIDER_SLOW = "provider-slow";
    /** An armed fault point that no thread reached in time: nothing was injected. */
    public static final String NOT_REACHED = "not-reached";

    public FaultEvent {
        Objects.requireNonNull(fault, "fault");
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(detail, "detail");
    }

    /** Whether this event injects a fault (as opposed to ending one). */
    public boolean isInjection() {
        return switch (fault) {
            case KILL, PAUSE, COORDINATOR_KILL, PARTITION, PROVIDER_FAULTS, CLOCK_SKEW, CLOCK_STEP, DB_CONNECTIONS_KILLED,
                 DB_RESTART, COORDINATOR_FAILOVER, HOLD, CALL_FAILED, FLEET_MIX, CONNECTION_BLIP, CONNECTION_CUT -> true;
            default -> false;
        };
    }

    /**
     * Whether the coordinator lost lease state at this event (leases granted before it no longer exclude
     * grants after it): a Redis server restarted empty. A ZooKeeper or Hazelcast member restarted rejoins a
     * quorum that kept the state, so its kill is not one.
     */
    public boolean losesCoordinatorState() {
        return COORDINATOR_DATA_LOSS.equals(fault);
    }

    public String toJson() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("t", t);
        m.put("fault", fault);
        m.put("target", target);
        m.put("detail", detail);
        return Json.object(m);
    }

    public static FaultEvent parse(String line) {
        Map<String, Object> m = Json.parseObject(line);
        return new FaultEvent(HistoryEvent.num(m, "t", 0), HistoryEvent.str(m, "fault"), HistoryEvent.str(m, "target"),
                m.get("detail") == null ? "" : m.get("detail").toString());
    }
}
