package dev.leasebox.chaos.harness;

import dev.leasebox.testkit.LoopbackPorts;
import dev.leasebox.chaos.fault.FaultLog;
import dev.leasebox.chaos.history.FaultEvent;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Three Hazelcast CP member JVMs ({@code leasebox hazelcast-member}) on free loopback ports, CP
 * session TTL 6 s and heartbeat 1 s: the shortest session a 5 s lease allows, so a killed worker's
 * locks come back within about 7 s of its last heartbeat (the scenarios' 3 s leases fit well inside). The restart fault kills one CP member with SIGKILL and starts
 * a member on its port again: the CP group keeps its majority meanwhile, and the restarted JVM joins
 * as a new member (CP persistence is off).
 */
public final class HazelcastCoordinator implements Coordinator {

    private static final String CLUSTER = "leasebox-chaos";
    private static final String SESSION_TTL = "6s";
    private static final String HEARTBEAT = "1s";
    private final List<Integer> ports;
    private final List<ChaosProcess> members = new ArrayList<>();
    private final Path runDir;
    private int starts;

    private HazelcastCoordinator(List<Integer> ports, Path runDir) {
        this.ports = ports;
        this.runDir = runDir;
    }

    public static HazelcastCoordinator start(Path runDir) {
        HazelcastCoordinator hz = new HazelcastCoordinator(LoopbackPorts.free(3), runDir);
        try {
            for (int i = 0; i < 3; i++) {
                hz.members.add(hz.startMember(i));
            }
            for (int i = 0; i < 3; i++) {
                hz.members.get(i).awaitListening("127.0.0.1", hz.ports.get(i), Duration.ofSeconds(60));
            }
        } catch (RuntimeException e) {
            hz.close();
            throw e;
        }
        return hz;
    }

    private ChaosProcess startMember(int index) {
        starts++;
        int port = ports.get(index);
        String all = ports.stream().map(p -> "127.0.0.1:" + p).collect(Collectors.joining(","));
        return ChaosProcess.start("hazelcast-" + port, ChaosProcess.javaCommand("dev.leasebox.cli.LeaseboxMain",
                        List.of("-Dhazelcast.logging.type=none", "-Dhazelcast.phone.home.enabled=false"),
                        List.of("hazelcast-member", "--port", Integer.toString(port), "--members", all,
                                "--cluster-name", CLUSTER, "--session-ttl", SESSION_TTL, "--heartbeat", HEARTBEAT)),
                Map.of(), runDir.resolve("hazelcast-" + port + "-" + starts + ".log"));
    }

    @Override
    public String backend() {
        return "hazelcast";
    }

    @Override
    public String address() {
        return ports.stream().map(p -> "127.0.0.1:" + p).collect(Collectors.joining(","));
    }

    /** A lock, renewal check or unlock gives up after 1 s, well within the short partition's 4.5 s cut. */
    @Override
    public Map<String, String> quickTimeouts() {
        return Map.of("operation-timeout", "1s");
    }

    @Override
    public Optional<Duration> session() {
        return Optional.of(Duration.parse("PT" + SESSION_TTL.toUpperCase()));
    }

    @Override
    public Map<String, String> backendOptions() {
        return Map.of("cluster-name", CLUSTER, "session-ttl", SESSION_TTL, "heartbeat", HEARTBEAT);
    }

    @Override
    public List<Integer> clientPorts() {
        return ports;
    }

    @Override
    public void restart(FaultLog faults, Duration downtime) {
        int victim = 2;
        ChaosProcess member = members.get(victim);
        faults.record(FaultEvent.COORDINATOR_KILL, "hazelcast:" + ports.get(victim), "SIGKILL CP member pid " + member.pid());
        member.kill();
        Poll.pause(downtime);
        ChaosProcess again = startMember(victim);
        members.set(victim, again);
        again.awaitListening("127.0.0.1", ports.get(victim), Duration.ofSeconds(60));
        faults.record(FaultEvent.COORDINATOR_START, "hazelcast:" + ports.get(victim), "member restarted, pid " + again.pid());
    }

    @Override
    public void close() {
        members.forEach(ChaosProcess::close);
    }
}
