package dev.leasebox.chaos.harness;

import dev.leasebox.testkit.LoopbackPorts;
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
    /** With a replica: the replica, and the address workers use (a proxy in front of the primary). */
    private ChaosProcess replica;
    private int replicaPort;
    private LoopbackProxy proxy;

    private RedisCoordinator(int port, Path runDir) {
        this.port = port;
        this.runDir = runDir;
    }

    public static RedisCoordinator start(Path runDir) {
        RedisCoordinator redis = new RedisCoordinator(LoopbackPorts.free(), runDir);
        redis.startServer();
        return redis;
    }

    /**
     * A primary and a replica ({@code --replicaof} the primary, link up before this returns), both without
     * persistence, and a {@link LoopbackProxy} in front of the primary: the one address workers are given, as a
     * virtual IP would be, which {@link #failover} moves to the promoted replica.
     */
    public static RedisCoordinator startWithReplica(Path runDir) {
        List<Integer> ports = LoopbackPorts.free(2);
        RedisCoordinator redis = new RedisCoordinator(ports.get(0), runDir);
        try {
            redis.startServer();
            redis.replicaPort = ports.get(1);
            redis.replica = ChaosProcess.start("redis-replica", List.of("redis-server", "--port",
                    Integer.toString(redis.replicaPort), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                    "--dir", runDir.toString(), "--replicaof", "127.0.0.1", Integer.toString(redis.port)), Map.of(),
                    runDir.resolve("redis-replica.log"));
            redis.replica.awaitListening("127.0.0.1", redis.replicaPort, Duration.ofSeconds(20));
            if (!Poll.until(() -> redis.replicationInfo(redis.replicaPort).contains("master_link_status:up"),
                    Duration.ofMillis(50), Duration.ofSeconds(20))) {
                throw new IllegalStateException("the Redis replica on port " + redis.replicaPort + " never linked to "
                        + "its primary; log " + redis.replica.log());
            }
            redis.proxy = LoopbackProxy.start(redis.port);
            return redis;
        } catch (RuntimeException e) {
            redis.close();
            throw e;
        }
    }

    private String replicationInfo(int at) {
        try (redis.clients.jedis.Jedis jedis = new redis.clients.jedis.Jedis("127.0.0.1", at)) {
            return jedis.info("replication");
        } catch (RuntimeException e) {
            return "";
        }
    }

    /**
     * The failover: the replica frozen (SIGSTOP) so that it stops receiving the primary's writes,
     * {@code whileFrozen} run (the caller waits there until more leases were written), the primary SIGKILLed,
     * the replica resumed and promoted ({@code REPLICAOF NO ONE}), and the workers' address moved to it (their
     * connections dropped). Every write after the freeze is lost: the fault log says so
     * ({@code coordinator-data-loss}).
     */
    public void failover(FaultLog faults, Runnable whileFrozen) {
        if (replica == null) {
            throw new IllegalStateException("this Redis coordinator was started without a replica");
        }
        replica.pause();
        String offset = replicationInfo(port).lines().filter(l -> l.startsWith("master_repl_offset:")).findFirst().orElse("");
        faults.record(FaultEvent.COORDINATOR_FAILOVER, "redis:" + port, "replica " + replicaPort
                + " frozen (SIGSTOP) at primary " + offset.trim() + "; primary keeps granting");
        whileFrozen.run();
        String lostFrom = replicationInfo(port).lines().filter(l -> l.startsWith("master_repl_offset:")).findFirst().orElse("");
        server.kill();
        replica.resume();
        try (redis.clients.jedis.Jedis jedis = new redis.clients.jedis.Jedis("127.0.0.1", replicaPort)) {
            jedis.replicaofNoOne();
        }
        proxy.switchTo(replicaPort);
        faults.record(FaultEvent.COORDINATOR_START, "redis:" + replicaPort, "primary SIGKILLed at " + lostFrom.trim()
                + "; replica promoted (REPLICAOF NO ONE), the workers' address now leads to it");
        faults.record(FaultEvent.COORDINATOR_DATA_LOSS, "redis:" + replicaPort,
                "the promoted replica never received the primary's writes after the freeze");
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
        return "redis://127.0.0.1:" + (proxy != null ? proxy.port() : port);
    }

    @Override
    public Map<String, String> backendOptions() {
        return Map.of();
    }

    @Override
    public List<Integer> clientPorts() {
        return proxy != null ? List.of(proxy.port()) : List.of(port);
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
        if (proxy != null) {
            proxy.close();
        }
        if (replica != null) {
            replica.close();
        }
        if (server != null) {
            server.close();
        }
    }
}
