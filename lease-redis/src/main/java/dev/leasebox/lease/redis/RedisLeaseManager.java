package dev.leasebox.lease.redis;

import dev.leasebox.lease.LapsingLeases;
import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseLoss;
import dev.leasebox.lease.LeaseLossListener;
import dev.leasebox.lease.LeaseManager;
import dev.leasebox.lease.LeaseManagerException;
import dev.leasebox.lease.LeaseRequest;
import dev.leasebox.lease.WakeUpChannel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisAccessControlException;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;

import javax.net.ssl.SSLException;
import java.security.cert.CertificateException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;

/**
 * Leases held in Redis: one key per leased key, {@code SET <namespace>:lease:<key> "<fence>:<owner>"
 * NX PX <ttl>}, granted, renewed and released in batches by Lua scripts, each batch one atomic
 * round trip ({@code EVALSHA}).
 *
 * <h2>The fence</h2>
 * A grant's fence is the next value of {@code <namespace>:fence}, one counter for the whole
 * namespace, taken inside the granting script only for keys that are free (the script moves the
 * counter past a call's grants once). While Redis keeps its
 * data, fences therefore grow strictly across all keys and grants of a namespace, and every fence
 * is above any floor set by {@link #raiseFenceFloor(long)}. The counter never expires; no other key
 * is left behind once leases expire.
 *
 * <h2>When a lease is lost</h2>
 * <ul>
 *   <li><b>Expiry by Redis's clock.</b> The key expires {@code ttl} after the script that set or last
 *       renewed it ran on Redis. The holder's {@link Lease#localDeadline()} is counted from when the
 *       request was <em>sent</em>, minus the safety margin, so it passes first unless the clocks run
 *       apart by more than the margin. Redis stores expiry as wall-clock time: a forward jump of the
 *       Redis host's clock expires leases early.</li>
 *   <li><b>Redis loses data</b>: a restart without persistence (or with an RDB snapshot or AOF older
 *       than the grant), a failover to a replica the grant had not reached (replication is
 *       asynchronous), {@code FLUSHDB}/{@code FLUSHALL}, deletion of the namespace's keys, or eviction
 *       under a {@code maxmemory-policy} other than {@code noeviction}. Then another owner can be
 *       granted the key while the first still believes it holds it, and the fence counter can go
 *       <em>backwards</em> (measured: 3 before a restart without persistence, 1 after).</li>
 * </ul>
 * Redis has no session: a holder that cannot reach Redis learns nothing; calls throw
 * {@link LeaseManagerException} naming the address, and the holder must stop at its local
 * deadline. A renewal that finds a lease expired or held by another grant leaves Redis untouched and
 * reports the lease to the {@link LeaseLossListener}s as {@link LeaseLoss.Cause#RENEWAL_REFUSED}.
 *
 * <h2>What safety rests on</h2>
 * Not on Redis alone. Every claim is recorded by the outbox store only when its fence is above the
 * row's {@code fence_high_water}, and final writes check the claim token, so a holder whose lease
 * Redis lost, or a grant whose fence repeats one from before a data loss, changes nothing.
 * <em>Progress</em> after a data loss rests on {@link #raiseFenceFloor(long)}: the drain raises the
 * floor to the highest fence the store recorded, and grants are accepted again.
 *
 * <h2>Deployment</h2>
 * Several deployments share one Redis through distinct namespaces. On Redis Cluster, give the
 * namespace a hash tag ({@code {orders}}) so its counter and lease keys live in one slot, as each
 * script touches them together; this class connects to one master (directly or through Sentinel),
 * so on Cluster point it at the master owning that slot's node. Use {@code maxmemory-policy
 * noeviction}. The least an ACL user needs (scripts run with the caller's permissions):
 * {@code ~<namespace>:* +ping +evalsha +eval +script|load +set +get +pexpire +del}, and for
 * wake-ups {@code &<namespace>:wake-up:* +publish +subscribe +unsubscribe}.
 * Fences are exact up to 2<sup>53</sup> (Lua numbers).
 *
 * <h2>Wake-ups</h2>
 * As a {@link WakeUpChannel}: {@code PUBLISH <namespace>:wake-up:<topic> <hint>}; each subscription holds one
 * pooled connection in {@code SUBSCRIBE} on a thread of its own and subscribes again after a broken
 * connection ({@link RedisWakeUps}). Hints are pub/sub messages: lost for whoever is not subscribed.
 *
 * <p>Thread-safe; one instance may serve many owners, as one Redis serves many nodes.
 */
public final class RedisLeaseManager implements LeaseManager, LapsingLeases, WakeUpChannel {

    private static final Logger log = LoggerFactory.getLogger(RedisLeaseManager.class);

    private final RedisLeaseConfig config;
    private final Clock clock;
    private final RedisKeys keys;
    private final UnifiedJedis redis;
    private final List<LeaseLossListener> listeners = new CopyOnWriteArrayList<>();
    private volatile boolean closed;

    /** Whether {@link #close()} closes {@link #redis}: false for a client the caller handed in. */
    private final boolean ownsClient;

    private RedisLeaseManager(RedisLeaseConfig config, Clock clock, UnifiedJedis redis, boolean ownsClient) {
        this.config = config;
        this.clock = clock;
        this.keys = new RedisKeys(config.namespace());
        this.redis = redis;
        this.ownsClient = ownsClient;
    }

    /**
     * Connects, authenticates with a {@code PING} and caches the scripts, so a wrong address or
     * password fails here with one line naming the address (never the password).
     */
    public static RedisLeaseManager start(RedisLeaseConfig config, Clock clock) {
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(clock, "clock");
        JedisVersion.requireSupported(RedisLeaseManager.class.getClassLoader());
        UnifiedJedis redis;
        try {
            redis = RedisConnections.open(config);
        } catch (JedisException e) {
            throw failure(config, "connect", e);
        }
        return started(new RedisLeaseManager(config, clock, redis, true));
    }

    /**
     * A manager on a client the caller already has ({@code RedisClient}, {@code RedisSentinelClient}, any
     * {@link UnifiedJedis} on one Redis primary), leasing under {@code namespace}; {@link #close()} leaves the
     * client open. {@code address} names the server in messages and logs (e.g. {@code redis://10.0.0.5:6379}).
     * Checks the client with a {@code PING} and caches the scripts, failing with one line naming the address.
     */
    public static RedisLeaseManager using(UnifiedJedis client, String address, String namespace) {
        Objects.requireNonNull(client, "client");
        RedisLeaseConfig config = RedisLeaseConfig.builder().uri(Objects.requireNonNull(address, "address"))
                .namespace(Objects.requireNonNull(namespace, "namespace")).build();
        return started(new RedisLeaseManager(config, dev.leasebox.lease.MonotonicClock.system(), client, false));
    }

    private static RedisLeaseManager started(RedisLeaseManager manager) {
        UnifiedJedis redis = manager.redis;
        try {
            manager.call("PING", redis::ping);
            for (LeaseScript script : LeaseScript.values()) {
                manager.call("SCRIPT LOAD", () -> {
                    script.preload(redis);
                    return null;
                });
            }
        } catch (RuntimeException e) {
            if (manager.ownsClient) {
                redis.close();
            }
            throw e;
        }
        log.info("Started {}", manager.describe());
        return manager;
    }

    /**
     * {@link #start(RedisLeaseConfig, Clock)} on {@link dev.leasebox.lease.MonotonicClock#system()}: local deadlines
     * that wall-clock steps do not move.
     */
    public static RedisLeaseManager start(RedisLeaseConfig config) {
        return start(config, dev.leasebox.lease.MonotonicClock.system());
    }

    @Override
    public List<Lease> acquire(LeaseRequest request) {
        if (request.keys().isEmpty()) {
            return List.of();
        }
        long ttlMillis = ttlMillis(request.ttl().toMillis(), request.owner());
        List<String> scriptKeys = new ArrayList<>(request.keys().size() + 1);
        scriptKeys.add(keys.fenceCounter());
        request.keys().forEach(key -> scriptKeys.add(keys.lease(key)));
        Instant sentAt = clock.instant();
        List<?> fences = (List<?>) call("acquire", () ->
                LeaseScript.ACQUIRE.run(redis, scriptKeys, List.of(request.owner(), Long.toString(ttlMillis),
                        Integer.toString(request.maxGrants()))));
        List<Lease> granted = new ArrayList<>();
        for (int i = 0; i < request.keys().size(); i++) {
            long fence = (Long) fences.get(i);
            if (fence > 0) {
                granted.add(request.grant(request.keys().get(i), fence, sentAt));
            }
        }
        return granted;
    }

    @Override
    public List<Lease> renew(Collection<Lease> leases) {
        if (leases.isEmpty()) {
            return List.of();
        }
        List<Lease> batch = List.copyOf(leases);
        List<String> scriptKeys = new ArrayList<>(batch.size());
        List<String> args = new ArrayList<>(batch.size() * 2);
        for (Lease lease : batch) {
            scriptKeys.add(keys.lease(lease.key()));
            args.add(RedisKeys.holderValue(lease.fence(), lease.owner()));
            args.add(Long.toString(ttlMillis(lease.ttl().toMillis(), lease.owner())));
        }
        Instant sentAt = clock.instant();
        List<?> renewed = (List<?>) call("renew", () -> LeaseScript.RENEW.run(redis, scriptKeys, args));
        List<Lease> held = new ArrayList<>();
        List<Lease> lost = new ArrayList<>();
        for (int i = 0; i < batch.size(); i++) {
            if ((Long) renewed.get(i) == 1L) {
                held.add(batch.get(i).renewed(sentAt));
            } else {
                lost.add(batch.get(i));
            }
        }
        if (!lost.isEmpty()) {
            report(new LeaseLoss(lost, LeaseLoss.Cause.RENEWAL_REFUSED, "Redis at " + config.address()
                    + " (namespace " + config.namespace() + "): lease expired or held by another grant"));
        }
        return held;
    }

    @Override
    public List<Lease> release(Collection<Lease> leases) {
        if (leases.isEmpty()) {
            return List.of();
        }
        List<Lease> batch = List.copyOf(leases);
        List<String> scriptKeys = new ArrayList<>(batch.size());
        List<String> args = new ArrayList<>(batch.size());
        for (Lease lease : batch) {
            scriptKeys.add(keys.lease(lease.key()));
            args.add(RedisKeys.holderValue(lease.fence(), lease.owner()));
        }
        List<?> deleted = (List<?>) call("release", () -> LeaseScript.RELEASE.run(redis, scriptKeys, args));
        List<Lease> released = new ArrayList<>();
        for (int i = 0; i < batch.size(); i++) {
            if ((Long) deleted.get(i) == 1L) {
                released.add(batch.get(i));
            }
        }
        return released;
    }

    /**
     * Raises {@code <namespace>:fence} to {@code floor} when it is below, atomically, so the next
     * grant's fence is at least {@code floor + 1}. Always supported: returns true.
     */
    @Override
    public boolean raiseFenceFloor(long floor) {
        if (floor < 0) {
            throw new IllegalArgumentException("fence floor must not be negative, was " + floor);
        }
        Object raised = call("raise fence floor", () -> LeaseScript.RAISE_FENCE_FLOOR.run(
                redis, List.of(keys.fenceCounter()), List.of(Long.toString(floor))));
        if (Long.valueOf(2L).equals(raised)) {
            log.info("Started the fence counter {} at {} on {}, above the highest fence already on the table: first use of this "
                    + "namespace on this Redis (the table's fences came from another namespace or backend), or a Redis started "
                    + "again without its data", keys.fenceCounter(), floor, config.address());
        } else if (Long.valueOf(1L).equals(raised)) {
            log.warn("Raised the fence counter {} to {} on {}, so new fences start above the highest fence already on the table: "
                    + "expected when its fences came from another namespace or backend, else Redis lost its data (restarted "
                    + "without persistence, failed over)", keys.fenceCounter(), floor, config.address());
        }
        return true;
    }

    @Override
    public void publish(String topic, String hint) {
        call("PUBLISH", () -> redis.publish(keys.wakeUpChannel(topic), Objects.requireNonNull(hint, "hint")));
    }

    @Override
    public WakeUpChannel.Subscription subscribe(String topic, WakeUpChannel.Listener listener) {
        if (closed) {
            throw new IllegalStateException(describe() + " is closed; SUBSCRIBE refused");
        }
        return RedisWakeUps.subscribe(redis, keys.wakeUpChannel(topic), listener, config.address());
    }

    @Override
    public void addLeaseLossListener(LeaseLossListener listener) {
        listeners.add(Objects.requireNonNull(listener, "listener"));
    }

    @Override
    public String describe() {
        return "Redis lease manager at " + config.address() + " (namespace " + config.namespace() + ")";
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            if (ownsClient) {
                redis.close();
            }
        }
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

    private <T> T call(String operation, Supplier<T> command) {
        if (closed) {
            throw new IllegalStateException(describe() + " is closed; " + operation + " refused");
        }
        try {
            return command.get();
        } catch (JedisException e) {
            throw failure(config, operation, e);
        }
    }

    private static long ttlMillis(long millis, String owner) {
        if (millis < 1) {
            throw new IllegalArgumentException("Redis leases need a ttl of at least 1 ms, owner " + owner + " asked " + millis + " ms");
        }
        return millis;
    }

    /** One line: what failed, where, and what to check; never the password. */
    static LeaseManagerException failure(RedisLeaseConfig config, String operation, JedisException e) {
        String where = "Redis at " + config.address();
        String reason = rootMessage(e);
        if (e instanceof JedisAccessControlException || reason.startsWith("WRONGPASS") || reason.startsWith("NOAUTH")) {
            return new LeaseManagerException(where + " refused authentication for user '"
                    + config.user().orElse("default") + "' (" + reason + "); check the user and password of the Redis lease configuration", e);
        }
        if (causedBy(e, SSLException.class) || causedBy(e, CertificateException.class)) {
            return new LeaseManagerException(where + " presented a TLS certificate this client does not trust or the TLS handshake failed ("
                    + reason + "); set tls-truststore to a PKCS12 trust store holding Redis's CA, and check the host name in the uri", e);
        }
        if (e instanceof JedisConnectionException) {
            return new LeaseManagerException(where + " is unreachable (" + operation + "): " + reason
                    + "; check that Redis runs there and accepts connections from this host", e);
        }
        if (e instanceof JedisDataException) {
            return new LeaseManagerException(where + " refused " + operation + ": " + reason, e);
        }
        return new LeaseManagerException(where + " failed " + operation + ": " + reason, e);
    }

    private static boolean causedBy(Throwable e, Class<? extends Throwable> type) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (type.isInstance(t)) {
                return true;
            }
        }
        return false;
    }

    private static String rootMessage(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String message = root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
        if (message.endsWith(".")) {
            message = message.substring(0, message.length() - 1);
        }
        // Jedis keeps the socket's own reason ("Connection refused") as a suppressed exception.
        for (Throwable suppressed : root.getSuppressed()) {
            if (suppressed.getMessage() != null) {
                return message + " (" + suppressed.getMessage() + ")";
            }
        }
        return message;
    }
}
