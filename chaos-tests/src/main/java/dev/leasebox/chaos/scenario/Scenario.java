package dev.leasebox.chaos.scenario;

import dev.leasebox.chaos.fault.ClockSkew;
import dev.leasebox.chaos.fault.ClockStep;
import dev.leasebox.chaos.fault.CoordinatorRestart;
import dev.leasebox.chaos.fault.FaultInjector;
import dev.leasebox.chaos.fault.NetworkPartition;
import dev.leasebox.chaos.fault.ProviderFaults;
import dev.leasebox.chaos.fault.WorkerKill;
import dev.leasebox.chaos.fault.WorkerPause;

import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * A named fault schedule; a scenario run is a scenario on a backend with a workload (entries
 * enqueued while it runs, two workers) for a duration.
 *
 * @param name           the name on the command line
 * @param proves         what a passing run shows, in one sentence
 * @param injector       a fresh injector per run
 * @param needsExternal  true when the fault acts on a coordinator separate from the database
 * @param fencing        true when the fault exercises the fence (and {@code --unsafe-no-fence} must fail it)
 */
public record Scenario(String name, String proves, Supplier<FaultInjector> injector, boolean needsExternal,
                       boolean fencing) {

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
                    NetworkPartition::new, true, true),
            new Scenario("provider-faults", "A failing, slow downstream (503s, timeouts after delivery) forces retries "
                    + "and dead letters; every entry still ends DELIVERED (and in the inbox) or DEAD_LETTERED.",
                    ProviderFaults::new, false, false),
            new Scenario("clock-skew", "A worker whose wall clock steps two leases ahead while it holds claims may "
                    + "cause duplicates, but no stale completion is accepted and nothing is lost.",
                    ClockSkew::new, false, true),
            new Scenario("clock-step", "A holder whose wall clock steps two leases back and a taker whose clock steps "
                    + "two leases ahead, the holder then frozen past its lease: judged by real time, no lease is taken "
                    + "while it stands, no stale completion is accepted, nothing is lost.",
                    ClockStep::new, false, true));

    public static Optional<Scenario> named(String name) {
        return ALL.stream().filter(s -> s.name().equals(name)).findFirst();
    }

    public static List<String> names() {
        return ALL.stream().map(Scenario::name).toList();
    }

    /** Why this scenario cannot run on {@code backend} here, or empty when it can. */
    public String unavailableReason(String backend) {
        if (needsExternal && "database".equals(backend)) {
            return "the database backend has no coordinator apart from the outbox database";
        }
        if ("partition".equals(name)) {
            return NetworkPartition.unavailableReason();
        }
        return "";
    }
}
