package dev.leasebox.chaos.harness;

import dev.leasebox.chaos.worker.FaultPoints;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Byteman rules that put a fault point ({@link FaultPoints}) at one place of a backend's lease code, in a chaos
 * worker's JVM: faults no signal or network rule can time, such as a taker frozen between reading an expired lease
 * and taking it over. The rules name the product's internal classes and methods, so they live here, beside the
 * harness, and never in the product; a rule whose target moved does not fire, and the injector then records that
 * its point was never reached.
 */
public final class FaultRules {

    /** ZooKeeper: after a round read lease nodes as expired, before it sends the writes that take them over. */
    public static final String ZOOKEEPER_TAKEOVER = "zookeeper-takeover";

    /** Hazelcast: an unlock of a lock, made to fail on its owner thread without reaching the cluster. */
    public static final String HAZELCAST_UNLOCK = "hazelcast-unlock";

    private FaultRules() {
    }

    /** Holds the taker at {@link #ZOOKEEPER_TAKEOVER}; the detail is the round's takeovers (key, version read, token). */
    public static String zooKeeperTakeoverHold() {
        return """
                RULE leasebox chaos: hold a ZooKeeper taker between its read of expired nodes and its takeover
                CLASS dev.leasebox.lease.zookeeper.LeaseAcquisition
                METHOD round
                HELPER dev.leasebox.chaos.worker.FaultPoint
                AT INVOKE beforeTakeover
                IF TRUE
                DO hold("%s", $5)
                ENDRULE
                """.formatted(ZOOKEEPER_TAKEOVER);
    }

    /**
     * Fails the next unlock of a Hazelcast {@code FencedLock} with the exception a timed-out call throws, raised inside
     * {@code unlock()} before anything is sent: the lock stays held by the worker's CP session and the calling owner
     * thread, as after an unlock lost in transit, and the caller sees the exception its own call threw. (A rule at the
     * call site would not do: Byteman rethrows there from outside the caller's try blocks.)
     */
    public static String hazelcastUnlockFailure() {
        return """
                RULE leasebox chaos: fail a Hazelcast FencedLock unlock before it is sent
                INTERFACE ^com.hazelcast.cp.lock.FencedLock
                METHOD unlock()
                HELPER dev.leasebox.chaos.worker.FaultPoint
                AT ENTRY
                IF fail("%s", $0.getName())
                DO THROW new com.hazelcast.core.OperationTimeoutException("leasebox chaos: unlock failed at the fault point %s")
                ENDRULE
                """.formatted(HAZELCAST_UNLOCK, HAZELCAST_UNLOCK);
    }

    /** Writes {@code rules} to {@code file} (kept in the report directory, so a run shows what it injected). */
    public static Path write(Path file, String rules) {
        try {
            Files.writeString(file, rules, StandardCharsets.UTF_8);
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the fault rules " + file + ": " + e.getMessage(), e);
        }
    }

    /** The JVM arguments that load {@code rules} with the Byteman agent, their points driven from {@code points}. */
    static List<String> agentArguments(Path rules, Path points) {
        try {
            Files.createDirectories(points);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the fault point directory " + points + ": " + e.getMessage(), e);
        }
        return List.of("-javaagent:" + agentJar() + "=script:" + rules.toAbsolutePath(),
                "-D" + FaultPoints.DIRECTORY_PROPERTY + "=" + points.toAbsolutePath());
    }

    /** The jar holding Byteman's agent: Byteman's own, or leasebox-chaos.jar, whose manifest names the agent too. */
    static Path agentJar() {
        try {
            return Path.of(org.jboss.byteman.agent.Main.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException("cannot locate the Byteman agent's jar: " + e.getMessage(), e);
        }
    }
}
