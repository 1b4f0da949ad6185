package dev.leasebox.spring;

import dev.leasebox.Leasebox;
import dev.leasebox.claim.ClaimMode;
import dev.leasebox.claim.Granularity;
import dev.leasebox.claim.ReleaseAfterCompletion;
import dev.leasebox.drain.DrainOptions;
import org.springframework.boot.context.properties.ConfigurationProperties;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The {@code leasebox.*} properties: which table to drain, through which lease backend, to which provider,
 * and how. Every property has a default except the provider (an {@link dev.leasebox.provider.OutboxProvider}
 * bean, or {@code leasebox.provider}); a bad value fails the application's start with one line naming
 * the property. The names are the library's settings keys ({@link dev.leasebox.LeaseboxSettings}) under
 * {@code leasebox.}, which reads and checks them ({@link PropertySettings}).
 */
@ConfigurationProperties(prefix = "leasebox")
public class LeaseboxProperties {

    /** Where leases come from. */
    public enum Backend {
        /** Claims in the outbox table itself (FOR UPDATE SKIP LOCKED on PostgreSQL); no coordinator. */
        DATABASE,
        /** Redis, at leasebox.redis.uri (needs lease-redis on the class path). */
        REDIS,
        /** ZooKeeper, at leasebox.zookeeper.connect (needs lease-zookeeper on the class path). */
        ZOOKEEPER,
        /** Hazelcast CP members, at leasebox.hazelcast.members (needs lease-hazelcast on the class path). */
        HAZELCAST
    }

    /** Whether the starter configures anything: false leaves the drain, the TransactionalOutbox and the health indicator out. */
    private boolean enabled = true;

    /**
     * The lease backend. Unset: a LeaseManager bean of the application when there is one, else database.
     * Set to redis, zookeeper or hazelcast without a LeaseManager bean, the backend is opened by name with
     * its address property (and closed with the context).
     */
    private Backend backend;

    /** The outbox table, name or schema.name. */
    private String table = "leasebox_outbox";

    /** Separates deployments that share one coordinator (1-64 characters of A-Z a-z 0-9 _ . - { }). */
    private String namespace = "leasebox";

    /**
     * Where entries go, as NAME[:TARGET]: log, noop, http:URL, jdbc-inbox:JDBC_URL, or a provider jar's name, such as
     * kafka:BOOTSTRAP/TOPIC (leasebox-kafka) or rabbitmq:amqp://USER:PASS@HOST:PORT[/VHOST]/EXCHANGE (leasebox-rabbitmq).
     * An OutboxProvider bean of the application takes precedence.
     */
    private String provider;

    /** Entries claimed per cycle (1..10000). */
    private int batch = 100;

    /** Claim loops, each on its own thread (1..256). */
    private int concurrency = 1;

    /** How long a claim (lease) lasts unless renewed; renewed every third of it. */
    private Duration leaseTtl = Duration.ofSeconds(30);

    /** recorded (a claim record is written before emitting) or lean; unset: recorded for row leases, lean for partition leases. */
    private ClaimMode claimMode;

    /** row (one lease per claimed row) or partition (one lease per slot of the table, V3). */
    private Granularity granularity = Granularity.ROW;

    /** Emission attempts before a retryable failure is dead-lettered. */
    private int maxAttempts = 10;

    /** What an entry that failed max-attempts times becomes: dead-letter (its key moves on) or keep-retrying. */
    private DrainOptions.AttemptsExhausted whenAttemptsExhausted = DrainOptions.AttemptsExhausted.DEAD_LETTER;

    /** With partition granularity: emit each partition key's entries one at a time, in enqueue (id) order. */
    private boolean ordered;

    /** Row leases from a coordinator: release every lease after its completion (always), or let terminal ones lapse (non-terminal, redis only). */
    private ReleaseAfterCompletion releaseAfterCompletion = ReleaseAfterCompletion.ALWAYS;

    /** Row leases from a coordinator: release completed batches' leases from a background thread. */
    private boolean releaseInBackground;

    /** Row leases from a coordinator: ask for this many times a batch's rows and take at most a batch (1..10). */
    private int candidateOverAsk = 2;

    /** Row leases from a coordinator: pick each batch at random among the oldest N batches' worth of rows (1..100). */
    private int candidateSpread = 4;

    /** How long the drain's stop waits for emissions in flight before it releases their claims. */
    private Duration shutdownTimeout = Duration.ofSeconds(30);

    /** The claim owner (worker id) written to claimed rows; unset: host-pid-random. */
    private String owner;

    /** Wake the drain when entries are committed (PostgreSQL notifications, Leasebox writers, the coordinator); false: poll only. */
    private boolean wakeUps = true;

    /** Backend-specific settings by name in kebab-case (redis: password, pool-size, …; zookeeper: session-timeout, …; hazelcast: cluster-name, …). */
    private Map<String, String> backendOptions = new LinkedHashMap<>();

    private final Backoff backoff = new Backoff();
    private final Redis redis = new Redis();
    private final ZooKeeper zookeeper = new ZooKeeper();
    private final Hazelcast hazelcast = new Hazelcast();
    private final Health health = new Health();
    private final Schema schema = new Schema();

    /** The retry backoff: a delay drawn below min(max, initial * multiplier^(attempt-1)), as jitter says. */
    public static class Backoff {
        /** The first ceiling (at least 1ms). */
        private Duration initial = Duration.ofSeconds(1);

        /** The cap (at least the initial ceiling). */
        private Duration max = Duration.ofMinutes(5);

        /** How much the ceiling grows per failed attempt (1..100). */
        private double multiplier = 2;

        /** The fraction of the ceiling a delay may fall short of it (0..1; 1 spreads retries from 0 to the ceiling). */
        private double jitter = 1.0;

        public double getMultiplier() {
            return multiplier;
        }

        public void setMultiplier(double multiplier) {
            this.multiplier = multiplier;
        }

        public double getJitter() {
            return jitter;
        }

        public void setJitter(double jitter) {
            this.jitter = jitter;
        }

        public Duration getInitial() {
            return initial;
        }

        public void setInitial(Duration initial) {
            this.initial = initial;
        }

        public Duration getMax() {
            return max;
        }

        public void setMax(Duration max) {
            this.max = max;
        }
    }

    /** The redis backend. */
    public static class Redis {
        /** redis://[user[:password]@]host:port[/db] or rediss://… for TLS. */
        private String uri;

        public String getUri() {
            return uri;
        }

        public void setUri(String uri) {
            this.uri = uri;
        }
    }

    /** The zookeeper backend. */
    public static class ZooKeeper {
        /** host:port[,host:port…], a ZooKeeper connect string without chroot. */
        private String connect;

        public String getConnect() {
            return connect;
        }

        public void setConnect(String connect) {
            this.connect = connect;
        }
    }

    /** The hazelcast backend. */
    public static class Hazelcast {
        /** host:port,host:port of CP members, or file:PATH of a Hazelcast client XML/YAML file. */
        private String members;

        public String getMembers() {
            return members;
        }

        public void setMembers(String members) {
            this.members = members;
        }
    }

    /** The Actuator health indicator ("leasebox"). */
    public static class Health {
        /** The indicator is DOWN while the oldest entry waiting for delivery is older than this. */
        private Duration oldestPendingThreshold = Duration.ofMinutes(15);

        public Duration getOldestPendingThreshold() {
            return oldestPendingThreshold;
        }

        public void setOldestPendingThreshold(Duration oldestPendingThreshold) {
            this.oldestPendingThreshold = oldestPendingThreshold;
        }
    }

    /** The outbox table's migrations (db/leasebox/&lt;database&gt;/V1__… to the newest, in outbox-drain's jar). */
    public static class Schema {
        /**
         * Apply the migrations the table lacks when the drain starts (creating the table if it is missing). False:
         * a table without every migration fails the start, naming the migrations to apply.
         */
        private boolean apply = false;

        /** Lease slots V3 creates when the starter applies it (partition leases; fixed once applied, 1..65536). */
        private int slots = 256; // LeaseboxSchema.DEFAULT_SLOT_COUNT, written out for the generated metadata's default

        public boolean isApply() {
            return apply;
        }

        public void setApply(boolean apply) {
            this.apply = apply;
        }

        public int getSlots() {
            return slots;
        }

        public void setSlots(int slots) {
            this.slots = slots;
        }
    }

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public Backend getBackend() {
        return backend;
    }

    public void setBackend(Backend backend) {
        this.backend = backend;
    }

    public String getTable() {
        return table;
    }

    public void setTable(String table) {
        this.table = table;
    }

    public String getNamespace() {
        return namespace;
    }

    public void setNamespace(String namespace) {
        this.namespace = namespace;
    }

    public String getProvider() {
        return provider;
    }

    public void setProvider(String provider) {
        this.provider = provider;
    }

    public int getBatch() {
        return batch;
    }

    public void setBatch(int batch) {
        this.batch = batch;
    }

    public int getConcurrency() {
        return concurrency;
    }

    public void setConcurrency(int concurrency) {
        this.concurrency = concurrency;
    }

    public Duration getLeaseTtl() {
        return leaseTtl;
    }

    public void setLeaseTtl(Duration leaseTtl) {
        this.leaseTtl = leaseTtl;
    }

    public ClaimMode getClaimMode() {
        return claimMode;
    }

    public void setClaimMode(ClaimMode claimMode) {
        this.claimMode = claimMode;
    }

    public Granularity getGranularity() {
        return granularity;
    }

    public void setGranularity(Granularity granularity) {
        this.granularity = granularity;
    }

    public int getMaxAttempts() {
        return maxAttempts;
    }

    public void setMaxAttempts(int maxAttempts) {
        this.maxAttempts = maxAttempts;
    }

    public DrainOptions.AttemptsExhausted getWhenAttemptsExhausted() {
        return whenAttemptsExhausted;
    }

    public void setWhenAttemptsExhausted(DrainOptions.AttemptsExhausted whenAttemptsExhausted) {
        this.whenAttemptsExhausted = whenAttemptsExhausted;
    }

    public boolean isOrdered() {
        return ordered;
    }

    public void setOrdered(boolean ordered) {
        this.ordered = ordered;
    }

    public ReleaseAfterCompletion getReleaseAfterCompletion() {
        return releaseAfterCompletion;
    }

    public void setReleaseAfterCompletion(ReleaseAfterCompletion releaseAfterCompletion) {
        this.releaseAfterCompletion = releaseAfterCompletion;
    }

    public boolean isReleaseInBackground() {
        return releaseInBackground;
    }

    public void setReleaseInBackground(boolean releaseInBackground) {
        this.releaseInBackground = releaseInBackground;
    }

    public int getCandidateOverAsk() {
        return candidateOverAsk;
    }

    public void setCandidateOverAsk(int candidateOverAsk) {
        this.candidateOverAsk = candidateOverAsk;
    }

    public int getCandidateSpread() {
        return candidateSpread;
    }

    public void setCandidateSpread(int candidateSpread) {
        this.candidateSpread = candidateSpread;
    }

    public Duration getShutdownTimeout() {
        return shutdownTimeout;
    }

    public void setShutdownTimeout(Duration shutdownTimeout) {
        this.shutdownTimeout = shutdownTimeout;
    }

    public String getOwner() {
        return owner;
    }

    public void setOwner(String owner) {
        this.owner = owner;
    }

    public boolean isWakeUps() {
        return wakeUps;
    }

    public void setWakeUps(boolean wakeUps) {
        this.wakeUps = wakeUps;
    }

    public Map<String, String> getBackendOptions() {
        return backendOptions;
    }

    public void setBackendOptions(Map<String, String> backendOptions) {
        this.backendOptions = backendOptions;
    }

    public Backoff getBackoff() {
        return backoff;
    }

    public Redis getRedis() {
        return redis;
    }

    public ZooKeeper getZookeeper() {
        return zookeeper;
    }

    public Hazelcast getHazelcast() {
        return hazelcast;
    }

    public Health getHealth() {
        return health;
    }

    public Schema getSchema() {
        return schema;
    }
}
