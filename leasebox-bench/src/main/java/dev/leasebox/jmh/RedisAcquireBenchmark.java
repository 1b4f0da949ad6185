package dev.leasebox.jmh;

import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseRequest;
import dev.leasebox.lease.redis.RedisLeaseConfig;
import dev.leasebox.lease.redis.RedisLeaseManager;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.params.SetParams;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A batch's lease round trips on Redis, acquire then release, through {@link RedisLeaseManager}'s Lua
 * scripts (one {@code EVALSHA} each: a {@code SET NX PX} per key and the fence counter moved once, release
 * only where the value is still this grant's) against the cheapest thing with the same round trips:
 * a pipeline of plain {@code SET NX PX} and {@code INCR} per key, then a pipeline of {@code DEL}, which
 * neither fences per grant atomically nor checks ownership on release. Same Redis, same run.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class RedisAcquireBenchmark {

    private static final Duration TTL = Duration.ofSeconds(30);

    @Param({"10", "100"})
    int batch;

    private RedisLeaseManager manager;
    private Jedis raw;
    private String namespace;
    private List<String> keys;

    @Setup(Level.Trial)
    public void connect() {
        URI redis = Servers.redis();
        namespace = "leasebox-jmh-" + Long.toHexString(System.nanoTime());
        manager = RedisLeaseManager.start(RedisLeaseConfig.builder().uri(redis.toString()).namespace(namespace).build());
        raw = new Jedis(redis);
        keys = new ArrayList<>();
        for (int i = 0; i < batch; i++) {
            keys.add("row-" + i);
        }
    }

    @TearDown(Level.Trial)
    public void disconnect() {
        raw.del(namespace + ":fence", namespace + ":raw-fence");
        manager.close();
        raw.close();
    }

    @Benchmark
    public int leaseManagerAcquireAndRelease() {
        List<Lease> granted = manager.acquire(new LeaseRequest(keys, "jmh", TTL));
        return manager.release(granted).size();
    }

    @Benchmark
    public int pipelinedSetNxThenDel() {
        Pipeline acquire = raw.pipelined();
        SetParams nx = SetParams.setParams().nx().px(TTL.toMillis());
        for (String key : keys) {
            acquire.set(namespace + ":raw:" + key, "jmh", nx);
            acquire.incr(namespace + ":raw-fence");
        }
        acquire.sync();
        Pipeline release = raw.pipelined();
        for (String key : keys) {
            release.del(namespace + ":raw:" + key);
        }
        release.sync();
        return keys.size();
    }
}
