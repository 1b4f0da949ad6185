package dev.leasebox.lease.hazelcast;

import dev.leasebox.lease.spi.LeaseBackendSettings;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * How a {@link HazelcastLeaseManager} reaches its CP Subsystem and what it enforces; validated when
 * built, each error naming the property and the bad value.
 *
 * <p>Three ways in:
 * <ul>
 *   <li>{@link #client(List, String)} — a client of an existing cluster, from addresses and a cluster
 *       name, optionally with {@link Builder#credentials(String, String) credentials};</li>
 *   <li>{@link #clientFromFile(Path)} — a client configured by a {@code hazelcast-client.xml/.yaml};</li>
 *   <li>{@link #memberFromFile(Path)} — this JVM becomes a cluster member configured by a
 *       {@code hazelcast.xml/.yaml} (embedded mode).</li>
 * </ul>
 * An already running instance is passed to {@link HazelcastLeaseManager#using} with a config made by
 * {@link #existingInstance()}.
 *
 * <p>The CP session of the instance decides how long the leases of a crashed holder stay held:
 * {@code session-time-to-live-seconds} after its last heartbeat. A member reads both values from its
 * own configuration; a client cannot, so a client declares them with {@link Builder#cpSession}
 * (default: Hazelcast's defaults, 300 s and 5 s) and must keep them equal to the cluster's.
 */
public final class HazelcastLeaseConfig {

    /** How the manager obtains its Hazelcast instance. */
    public enum Mode {
        /** A client from addresses, cluster name and optional credentials. */
        CLIENT_ADDRESSES,
        /** A client from a client configuration file. */
        CLIENT_FILE,
        /** An embedded member from a member configuration file. */
        MEMBER_FILE,
        /** An instance the caller started and owns. */
        EXISTING_INSTANCE
    }

    static final Duration DEFAULT_SESSION_TTL = Duration.ofSeconds(300);

    static final Duration DEFAULT_HEARTBEAT = Duration.ofSeconds(5);

    private final Mode mode;
    private final List<String> addresses;
    private final String clusterName;
    private final String username;
    private final String password;
    private final Path configFile;
    private final Duration connectTimeout;
    private final Duration operationTimeout;
    private final Duration declaredSessionTtl;
    private final Duration declaredHeartbeat;
    private final Duration leaseTtl;
    private final String cpGroup;
    private final String namespace;
    private final int ownerThreads;
    private final boolean peerRanks;
    private final Duration reapInterval;
    private final Clock clock;

    private HazelcastLeaseConfig(Builder b) {
        this.mode = b.mode;
        this.addresses = List.copyOf(b.addresses);
        this.clusterName = b.clusterName;
        this.username = b.username;
        this.password = b.password;
        this.configFile = b.configFile;
        this.connectTimeout = positive("connectTimeout", b.connectTimeout);
        this.operationTimeout = positive("operationTimeout", b.operationTimeout);
        this.declaredSessionTtl = positive("cpSession.ttl", b.sessionTtl);
        this.declaredHeartbeat = positive("cpSession.heartbeat", b.heartbeat);
        if (declaredHeartbeat.compareTo(declaredSessionTtl) >= 0) {
            throw new IllegalArgumentException("cpSession.heartbeat " + declaredHeartbeat
                    + " must be shorter than cpSession.ttl " + declaredSessionTtl);
        }
        this.leaseTtl = b.leaseTtl == null ? null : positive("leaseTtl", b.leaseTtl);
        this.cpGroup = b.cpGroup;
        this.namespace = b.namespace;
        this.ownerThreads = b.ownerThreads;
        this.peerRanks = b.peerRanks;
        this.reapInterval = positive("reapInterval", b.reapInterval);
        this.clock = b.clock;
        if (mode == Mode.CLIENT_ADDRESSES && addresses.isEmpty()) {
            throw new IllegalArgumentException("addresses must name at least one host:port of the Hazelcast cluster");
        }
        if (ownerThreads < 1 || ownerThreads > 64) {
            throw new IllegalArgumentException("ownerThreads must be in [1, 64], was " + ownerThreads);
        }
        if (cpGroup.isBlank() || cpGroup.contains("@")) {
            throw new IllegalArgumentException("cpGroup must be a non-blank CP group name without '@', was '" + cpGroup + "'");
        }
        if (namespace.isBlank() || namespace.contains("@") || namespace.chars().anyMatch(Character::isWhitespace)) {
            throw new IllegalArgumentException("namespace must be non-blank, without whitespace or '@' (it selects a CP group), was '"
                    + namespace + "'");
        }
    }

    private static Duration positive(String property, Duration value) {
        Objects.requireNonNull(value, property);
        if (value.isZero() || value.isNegative()) {
            throw new IllegalArgumentException(property + " must be positive, was " + value);
        }
        return value;
    }

    /** A client of the cluster {@code clusterName} reached at {@code addresses} ("host:port"). */
    public static Builder client(List<String> addresses, String clusterName) {
        Builder b = new Builder(Mode.CLIENT_ADDRESSES);
        for (String address : addresses) {
            if (address == null || address.isBlank()) {
                throw new IllegalArgumentException("addresses must not contain blank entries, was " + addresses);
            }
        }
        b.addresses = List.copyOf(addresses);
        b.clusterName = requireText("clusterName", clusterName);
        return b;
    }

    /** A client configured by a Hazelcast client XML or YAML file. */
    public static Builder clientFromFile(Path file) {
        Builder b = new Builder(Mode.CLIENT_FILE);
        b.configFile = Objects.requireNonNull(file, "file");
        return b;
    }

    /** An embedded member configured by a Hazelcast member XML or YAML file. */
    public static Builder memberFromFile(Path file) {
        Builder b = new Builder(Mode.MEMBER_FILE);
        b.configFile = Objects.requireNonNull(file, "file");
        return b;
    }

    /** Settings for {@link HazelcastLeaseManager#using}, on an instance the caller owns. */
    public static Builder existingInstance() {
        return new Builder(Mode.EXISTING_INSTANCE);
    }

    private static String requireText(String property, String value) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(property + " must not be blank");
        }
        return value;
    }

    public Mode mode() {
        return mode;
    }

    public List<String> addresses() {
        return addresses;
    }

    public String clusterName() {
        return clusterName == null ? "" : clusterName;
    }

    public Optional<String> username() {
        return Optional.ofNullable(username);
    }

    /** The password, for building the client config only; never logged or described. */
    Optional<String> password() {
        return Optional.ofNullable(password);
    }

    public Optional<Path> configFile() {
        return Optional.ofNullable(configFile);
    }

    /** How long start-up waits for the cluster connection and the CP Subsystem. */
    public Duration connectTimeout() {
        return connectTimeout;
    }

    /** How long one acquire/renew/release call waits for its owner threads before failing. */
    public Duration operationTimeout() {
        return operationTimeout;
    }

    /** The CP session TTL a client declares (a member reads its own). */
    public Duration declaredSessionTtl() {
        return declaredSessionTtl;
    }

    /** The CP session heartbeat interval a client declares (a member reads its own). */
    public Duration declaredHeartbeat() {
        return declaredHeartbeat;
    }

    /** The lease ttl the caller means to request, checked against the CP session at start. */
    public Optional<Duration> leaseTtl() {
        return Optional.ofNullable(leaseTtl);
    }

    public String cpGroup() {
        return cpGroup;
    }

    /** The namespace: every lock is named {@code <namespace>/<key>}. */
    public String namespace() {
        return namespace;
    }

    /** What every name this manager creates in the cluster starts with: {@code <namespace>/}. */
    String namePrefix() {
        return namespace + "/";
    }

    public int ownerThreads() {
        return ownerThreads;
    }

    /** Whether the manager keeps a peer entry and reports {@code peerRank()}. */
    public boolean peerRanks() {
        return peerRanks;
    }

    public Duration reapInterval() {
        return reapInterval;
    }

    public Clock clock() {
        return clock;
    }

    /** Builds a {@link HazelcastLeaseConfig}; every setter validates on {@link #build()}. */
    public static final class Builder {
        private final Mode mode;
        private List<String> addresses = List.of();
        private String clusterName;
        private String username;
        private String password;
        private Path configFile;
        private Duration connectTimeout = Duration.ofSeconds(15);
        private Duration operationTimeout = Duration.ofSeconds(15);
        private Duration sessionTtl = DEFAULT_SESSION_TTL;
        private Duration heartbeat = DEFAULT_HEARTBEAT;
        private Duration leaseTtl;
        private String cpGroup = "default";
        private String namespace = LeaseBackendSettings.DEFAULT_NAMESPACE;
        private int ownerThreads = 32;
        private boolean peerRanks = true;
        private Duration reapInterval = Duration.ofMillis(250);
        private Clock clock = dev.leasebox.lease.MonotonicClock.system();

        private Builder(Mode mode) {
            this.mode = mode;
        }

        /** Username/password credentials for the client (cluster security, Enterprise). */
        public Builder credentials(String username, String password) {
            this.username = requireText("username", username);
            this.password = Objects.requireNonNull(password, "password");
            return this;
        }

        /** Bounds the wait for the cluster and its CP Subsystem at start (default 15 s). */
        public Builder connectTimeout(Duration timeout) {
            this.connectTimeout = timeout;
            return this;
        }

        /** Bounds one acquire/renew/release call (default 15 s). */
        public Builder operationTimeout(Duration timeout) {
            this.operationTimeout = timeout;
            return this;
        }

        /** The cluster's CP session TTL and heartbeat, declared by a client (ignored by a member). */
        public Builder cpSession(Duration ttl, Duration heartbeat) {
            this.sessionTtl = ttl;
            this.heartbeat = heartbeat;
            return this;
        }

        /** The lease ttl callers will request, validated against the CP session at start. */
        public Builder leaseTtl(Duration ttl) {
            this.leaseTtl = ttl;
            return this;
        }

        /** The CP group holding the locks (default "default"); fences are comparable within one group. */
        public Builder cpGroup(String group) {
            this.cpGroup = Objects.requireNonNull(group, "cpGroup");
            return this;
        }

        /**
         * Separates deployments sharing one cluster (default {@code leasebox}, as on every backend): the lock of
         * key {@code k} is {@code <namespace>/k}. A manager opened by name ({@code --namespace}, Spring's
         * {@code leasebox.namespace}) with the same namespace locks the same names.
         */
        public Builder namespace(String namespace) {
            this.namespace = Objects.requireNonNull(namespace, "namespace");
            return this;
        }

        /** How many lock-affine owner threads lock and unlock (default 32: a FencedLock call blocks its thread for one Raft round trip, and concurrent calls share the CP group's log appends). */
        public Builder ownerThreads(int threads) {
            this.ownerThreads = threads;
            return this;
        }

        /**
         * Whether the manager reports its rank among the live managers of its namespace
         * (default on), so that workers ask for different rows first (candidate stripes): each
         * manager renews an entry in the IMap {@code <namespace>/%peers} every second and reads its keys.
         * Off leaves {@code peerRank()} empty, for clusters whose clients may not use IMaps.
         */
        public Builder peerRanks(boolean on) {
            this.peerRanks = on;
            return this;
        }

        /** How often owner threads look for leases past their ttl (default 250 ms). */
        public Builder reapInterval(Duration interval) {
            this.reapInterval = interval;
            return this;
        }

        /**
         * The clock of local lease deadlines (default {@link dev.leasebox.lease.MonotonicClock#system()}, which
         * wall-clock steps do not move; the CP Subsystem judges the locks themselves).
         */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        public HazelcastLeaseConfig build() {
            return new HazelcastLeaseConfig(this);
        }
    }
}
