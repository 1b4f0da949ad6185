package dev.leasebox.chaos.harness;

import dev.leasebox.lease.spi.LoopbackPorts;
import dev.leasebox.chaos.fault.FaultLog;
import dev.leasebox.chaos.history.FaultEvent;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * A redis-server process on a free loopback port, without persistence: a restart comes back
 * empty, losing every lease and the fence counter (the case the outbox's fence high-water mark and
 * the manager's fence floor exist for).
 */
public final class RedisCoordinator implements Coordinator {

    private final int port;
    private final Path runDir;
    private ChaosProcess server;
    private int starts;

    private RedisCoordinator(int port, Path runDir) {
        this.port = port;
        this.runDir = runDir;
    }

    public static RedisCoordinator start(Path runDir) {
        RedisCoordinator redis = new RedisCoordinator(LoopbackPorts.free(), runDir);
        redis.startServer();
        return redis;
    }

    private void startServer() {
        starts++;
        server = ChaosProcess.start("redis-server", List.of("redis-server", "--port", Integer.toString(port),
                "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", runDir.toString()), Map.of(),
                runDir.resolve("redis-" + starts + ".log"));
        server.awaitListening("127.0.0.1", port, Duration.ofSeconds(20));
    }

    @Override
    public String backend() {
        return "redis";
    }

    @Override
    public String address() {
        return "redis://127.0.0.1:" + port;
    }

    @Override
    public Map<String, String> backendOptions() {
        return Map.of();
    }

    @Override
    public List<Integer> clientPorts() {
        return List.of(port);
    }

    @Override
    public void restart(FaultLog faults, Duration downtime) {
        faults.record(FaultEvent.COORDINATOR_KILL, "redis:" + port, "SIGKILL pid " + server.pid() + " (no persistence: leases and fences lost)");
        server.kill();
        Poll.pause(downtime);
        startServer();
        faults.record(FaultEvent.COORDINATOR_START, "redis:" + port, "restarted empty, pid " + server.pid());
        faults.record(FaultEvent.COORDINATOR_DATA_LOSS, "redis:" + port, "every lease and fence granted before is forgotten");
    }

    @Override
    public void close() {
        if (server != null) {
            server.close();
        }
    }
}
