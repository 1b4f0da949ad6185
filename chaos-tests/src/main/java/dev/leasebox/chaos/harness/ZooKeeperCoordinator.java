package dev.leasebox.chaos.harness;

import dev.leasebox.testkit.LoopbackPorts;
import dev.leasebox.chaos.fault.FaultLog;
import dev.leasebox.chaos.history.FaultEvent;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * A three-server ZooKeeper ensemble, each server its own JVM ({@code QuorumPeerMain} with a generated
 * {@code zoo.cfg}) on free loopback ports. The restart fault kills one follower and starts it
 * again, then kills the leader and starts it again, so both a lost quorum member and a leader
 * election happen while workers hold leases.
 */
public final class ZooKeeperCoordinator implements Coordinator {

    static final String MAIN = "org.apache.zookeeper.server.quorum.QuorumPeerMain";
    /** Tries at starting the ensemble, each on fresh ports. */
    static final int START_ATTEMPTS = 3;

    private final Path runDir;
    private final List<Integer> clientPorts = new ArrayList<>();
    private final List<ChaosProcess> servers = new ArrayList<>();
    private int starts;

    private ZooKeeperCoordinator(Path runDir) {
        this.runDir = runDir;
    }

    /** Whether a ZooKeeper server can run from this class path. */
    public static boolean available() {
        try {
            Class.forName(MAIN, false, ZooKeeperCoordinator.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    /**
     * Starts the ensemble on nine distinct free ports. A server that exits before listening (another
     * process took one of its ports between choosing and binding) fails this attempt; the ensemble is
     * then stopped and started again on fresh ports, in a directory of its own, up to
     * {@value #START_ATTEMPTS} times. Anything else fails at once.
     */
    public static ZooKeeperCoordinator start(Path runDir) {
        for (int attempt = 1; ; attempt++) {
            Path dir = attempt == 1 ? runDir : runDir.resolve("zookeeper-attempt-" + attempt);
            try {
                return startOnce(dir);
            } catch (ServerExited e) {
                if (attempt == START_ATTEMPTS) {
                    throw new IllegalStateException("the ZooKeeper ensemble did not start in " + START_ATTEMPTS
                            + " attempts on fresh ports; the last: " + e.getMessage(), e);
                }
            }
        }
    }

    /** A server of the ensemble exited before it listened. */
    private static final class ServerExited extends RuntimeException {
        ServerExited(String message, Throwable cause) {
            super(message, cause);
        }
    }

    private static ZooKeeperCoordinator startOnce(Path runDir) {
        ZooKeeperCoordinator zk = new ZooKeeperCoordinator(runDir);
        try {
            List<Integer> ports = LoopbackPorts.free(9);
            List<String> peers = new ArrayList<>();
            for (int i = 1; i <= 3; i++) {
                zk.clientPorts.add(ports.get(3 * (i - 1)));
                peers.add("server." + i + "=127.0.0.1:" + ports.get(3 * (i - 1) + 1) + ":" + ports.get(3 * (i - 1) + 2));
            }
            for (int i = 1; i <= 3; i++) {
                zk.writeConfig(i, peers);
            }
            for (int i = 1; i <= 3; i++) {
                zk.servers.add(zk.startServer(i));
            }
            for (int i = 1; i <= 3; i++) {
                ChaosProcess server = zk.servers.get(i - 1);
                try {
                    server.awaitListening("127.0.0.1", zk.clientPorts.get(i - 1), Duration.ofSeconds(60));
                } catch (IllegalStateException e) {
                    if (!server.isAlive()) {
                        throw new ServerExited(e.getMessage(), e);
                    }
                    throw e;
                }
            }
            zk.awaitLeader(Duration.ofSeconds(60));
        } catch (RuntimeException e) {
            zk.close();
            throw e;
        }
        return zk;
    }

    private void writeConfig(int id, List<String> peers) {
        Path dir = runDir.resolve("zk" + id);
        try {
            Files.createDirectories(dir.resolve("data"));
            Files.writeString(dir.resolve("data").resolve("myid"), Integer.toString(id));
            List<String> lines = new ArrayList<>(List.of("tickTime=500", "initLimit=20", "syncLimit=5",
                    "dataDir=" + dir.resolve("data"), "clientPort=" + clientPorts.get(id - 1),
                    "clientPortAddress=127.0.0.1", "admin.enableServer=false", "4lw.commands.whitelist=srvr",
                    "maxSessionTimeout=60000", "minSessionTimeout=1000"));
            lines.addAll(peers);
            Files.write(dir.resolve("zoo.cfg"), lines);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write ZooKeeper config in " + dir + ": " + e.getMessage(), e);
        }
    }

    private ChaosProcess startServer(int id) {
        starts++;
        Path dir = runDir.resolve("zk" + id);
        return ChaosProcess.start("zookeeper-" + id, ChaosProcess.javaCommand(MAIN,
                        List.of("-Dzookeeper.admin.enableServer=false", "-Dzookeeper.jmx.log4j.disable=true"),
                        List.of(dir.resolve("zoo.cfg").toString())),
                Map.of(), runDir.resolve("zookeeper-" + id + "-" + starts + ".log"));
    }

    /** The server's mode from the {@code srvr} command: leader, follower, or empty when it does not answer. */
    String mode(int id) {
        try (Socket s = new Socket("127.0.0.1", clientPorts.get(id - 1))) {
            s.setSoTimeout(2000);
            OutputStream out = s.getOutputStream();
            out.write("srvr".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            String text = new String(in.readAllBytes(), StandardCharsets.US_ASCII);
            for (String line : text.split("\n")) {
                if (line.startsWith("Mode:")) {
                    return line.substring(5).trim();
                }
            }
            return "";
        } catch (IOException e) {
            return "";
        }
    }

    private int awaitLeader(Duration timeout) {
        int[] leader = {0};
        boolean found = Poll.until(() -> {
            for (int i = 1; i <= 3; i++) {
                if ("leader".equals(mode(i))) {
                    leader[0] = i;
                    return true;
                }
            }
            return false;
        }, Duration.ofMillis(200), timeout);
        if (!found) {
            throw new IllegalStateException("the ZooKeeper ensemble at " + address() + " elected no leader in " + timeout
                    + "; logs in " + runDir);
        }
        return leader[0];
    }

    @Override
    public String backend() {
        return "zookeeper";
    }

    @Override
    public String address() {
        return clientPorts.stream().map(p -> "127.0.0.1:" + p).collect(Collectors.joining(","));
    }

    /** The session the workers ask for (the lease manager's default), within the servers' 1–60 s bounds. */
    private static final Duration SESSION_TIMEOUT = Duration.ofSeconds(15);

    @Override
    public Map<String, String> backendOptions() {
        return Map.of("session-timeout", SESSION_TIMEOUT.toSeconds() + "s");
    }

    @Override
    public Optional<Duration> session() {
        return Optional.of(SESSION_TIMEOUT);
    }

    @Override
    public List<Integer> clientPorts() {
        return clientPorts;
    }

    @Override
    public void restart(FaultLog faults, Duration downtime) {
        int leader = awaitLeader(Duration.ofSeconds(30));
        int follower = leader % 3 + 1;
        bounce(faults, follower, "follower", downtime);
        int newLeader = awaitLeader(Duration.ofSeconds(30));
        bounce(faults, newLeader, "leader", downtime);
        awaitLeader(Duration.ofSeconds(30));
    }

    private void bounce(FaultLog faults, int id, String role, Duration downtime) {
        ChaosProcess server = servers.get(id - 1);
        faults.record(FaultEvent.COORDINATOR_KILL, "zookeeper-" + id, "SIGKILL the " + role + ", pid " + server.pid());
        server.kill();
        Poll.pause(downtime);
        ChaosProcess again = startServer(id);
        servers.set(id - 1, again);
        again.awaitListening("127.0.0.1", clientPorts.get(id - 1), Duration.ofSeconds(60));
        faults.record(FaultEvent.COORDINATOR_START, "zookeeper-" + id, "restarted, pid " + again.pid());
    }

    @Override
    public void close() {
        servers.forEach(ChaosProcess::close);
    }
}
