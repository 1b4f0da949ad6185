package dev.leasebox.lease.zookeeper;

import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;

/**
 * Everything a {@link ZooKeeperLeaseManager} needs, validated when {@link Builder#build()} is called:
 * a bad value fails with one line naming the setting ({@code leasebox.zookeeper.<name>}) and the value. The
 * settings, by their kebab-case names (those opened by name take the same names as backend options):
 *
 * <ul>
 *   <li>{@code connect-string} — the ensemble, {@code host:port[,host:port...]}.</li>
 *   <li>{@code session-timeout} — requested session timeout (default 15 s). The server
 *       clamps it to [2 × tickTime, 20 × tickTime]; the manager logs a warning when the negotiated one
 *       differs. A lease whose holder dies is grantable again after at most this long.</li>
 *   <li>{@code connection-timeout} — how long {@code start} waits for the first
 *       connection before failing (default 10 s).</li>
 *   <li>{@code operation-timeout} — how long one batch waits for its replies
 *       (default: the session timeout).</li>
 *   <li>{@code namespace} — the root znode; leases live under
 *       {@code /<namespace>/leases}, members under {@code /<namespace>/members} (default {@code leasebox}).</li>
 *   <li>{@code digest} — optional {@code user:password}; when set the client
 *       authenticates with it and every node it creates carries a creator-only digest ACL.</li>
 *   <li>{@code member-id} — this manager's name in the membership group (default
 *       host-pid-random, unique per manager).</li>
 *   <li>{@code max-clock-skew} — the most any manager's wall clock may be off true
 *       time, either way, counted twice: a node is taken over only once the taker's wall clock is past
 *       the deadline its holder wrote by more than this (default 1 s; see {@link ZooKeeperLeaseManager}).</li>
 * </ul>
 * {@link Builder#clock(Clock) clock} is the wall clock: it writes deadlines into lease nodes and
 * judges other managers' deadlines (default: system UTC). {@link Builder#localClock(Clock) localClock}
 * measures this manager's own local lease deadlines and must not step (default: a monotonic clock
 * driven by {@link System#nanoTime()}).
 */
public final class ZooKeeperLeaseConfig {

    private final String connectString;
    private final Duration sessionTimeout;
    private final Duration connectionTimeout;
    private final Duration operationTimeout;
    private final String namespace;
    private final String digest;
    private final String memberId;
    private final Clock clock;
    private final Clock localClock;
    private final Duration maxClockSkew;

    private ZooKeeperLeaseConfig(Builder builder) {
        this.connectString = builder.connectString;
        this.sessionTimeout = builder.sessionTimeout;
        this.connectionTimeout = builder.connectionTimeout;
        this.operationTimeout = builder.operationTimeout == null ? builder.sessionTimeout : builder.operationTimeout;
        this.namespace = builder.namespace;
        this.digest = builder.digest;
        this.memberId = builder.memberId == null ? defaultMemberId() : builder.memberId;
        this.clock = builder.clock;
        this.localClock = builder.localClock;
        this.maxClockSkew = builder.maxClockSkew;
    }

    /** A builder for the ensemble at {@code connectString}. */
    public static Builder builder(String connectString) {
        return new Builder(connectString);
    }

    public String connectString() {
        return connectString;
    }

    public Duration sessionTimeout() {
        return sessionTimeout;
    }

    public Duration connectionTimeout() {
        return connectionTimeout;
    }

    public Duration operationTimeout() {
        return operationTimeout;
    }

    public String namespace() {
        return namespace;
    }

    /** The {@code user:password} digest credentials, when configured. */
    public Optional<String> digest() {
        return Optional.ofNullable(digest);
    }

    public String memberId() {
        return memberId;
    }

    /** The wall clock: deadlines written into lease nodes, and the judge of other managers' deadlines. */
    public Clock clock() {
        return clock;
    }

    /** The clock of local lease deadlines ({@link dev.leasebox.lease.Lease#localDeadline()}): monotonic by default. */
    public Clock localClock() {
        return localClock;
    }

    /** How far past a written deadline a taker's wall clock must be before it takes the node over. */
    public Duration maxClockSkew() {
        return maxClockSkew;
    }

    @Override
    public String toString() {
        return "ZooKeeperLeaseConfig[connectString=" + connectString + ", sessionTimeout=" + sessionTimeout
                + ", maxClockSkew=" + maxClockSkew + ", namespace=" + namespace + ", digest=" + (digest == null ? "none" : "****") + ", memberId=" + memberId + "]";
    }

    private static String defaultMemberId() {
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            host = "unknown-host";
        }
        String pid = ManagementFactory.getRuntimeMXBean().getName().split("@")[0];
        return host + "-" + pid + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    /** Collects and validates the configuration. */
    public static final class Builder {

        private final String connectString;
        private Duration sessionTimeout = Duration.ofSeconds(15);
        private Duration connectionTimeout = Duration.ofSeconds(10);
        private Duration operationTimeout;
        private String namespace = dev.leasebox.lease.spi.LeaseBackendSettings.DEFAULT_NAMESPACE;
        private String digest;
        private String memberId;
        private Clock clock = Clock.systemUTC();
        private Clock localClock = dev.leasebox.lease.MonotonicClock.system();
        private Duration maxClockSkew = Duration.ofSeconds(1);

        private Builder(String connectString) {
            this.connectString = connectString;
        }

        public Builder sessionTimeout(Duration value) {
            this.sessionTimeout = value;
            return this;
        }

        public Builder connectionTimeout(Duration value) {
            this.connectionTimeout = value;
            return this;
        }

        public Builder operationTimeout(Duration value) {
            this.operationTimeout = value;
            return this;
        }

        /**
         * Separates deployments sharing one ensemble (default {@code leasebox}, as on every backend): leases live
         * under {@code /<namespace>/leases}. A manager opened by name ({@code --namespace}, Spring's
         * {@code leasebox.namespace}) with the same namespace leases the same nodes.
         */
        public Builder namespace(String value) {
            this.namespace = value;
            return this;
        }

        /** {@code user:password} digest credentials. */
        public Builder digest(String userColonPassword) {
            this.digest = userColonPassword;
            return this;
        }

        public Builder memberId(String value) {
            this.memberId = value;
            return this;
        }

        /** The wall clock that writes and judges the deadlines in lease nodes. */
        public Builder clock(Clock value) {
            this.clock = value;
            return this;
        }

        /** The clock of local deadlines; it must not step (tests inject a controllable one). */
        public Builder localClock(Clock value) {
            this.localClock = value;
            return this;
        }

        public Builder maxClockSkew(Duration value) {
            this.maxClockSkew = value;
            return this;
        }

        /** Validates every property, failing with one line that names the property and the bad value. */
        public ZooKeeperLeaseConfig build() {
            if (connectString == null || connectString.isBlank() || connectString.contains("/")) {
                throw invalid("connect-string", connectString, "host:port[,host:port...] without a chroot (use namespace)");
            }
            positive("session-timeout", sessionTimeout);
            positive("connection-timeout", connectionTimeout);
            if (operationTimeout != null) {
                positive("operation-timeout", operationTimeout);
            }
            if (sessionTimeout.toMillis() > Integer.MAX_VALUE) {
                throw invalid("session-timeout", sessionTimeout, "at most " + Integer.MAX_VALUE + " ms");
            }
            if (namespace == null || !namespace.matches("[A-Za-z0-9_.-]+") || namespace.equals(".") || namespace.equals("..")) {
                throw invalid("namespace", namespace, "one znode name of letters, digits, '_', '.', '-' (no '/')");
            }
            if (digest != null && (digest.indexOf(':') <= 0 || digest.indexOf(':') == digest.length() - 1)) {
                throw invalid("digest", "****", "user:password with both parts non-empty");
            }
            if (memberId != null && (memberId.isBlank() || memberId.contains("/"))) {
                throw invalid("member-id", memberId, "a non-blank name without '/'");
            }
            if (maxClockSkew == null || maxClockSkew.isNegative()) {
                throw invalid("max-clock-skew", maxClockSkew, "a duration of zero or more");
            }
            Objects.requireNonNull(clock, "clock");
            Objects.requireNonNull(localClock, "localClock");
            return new ZooKeeperLeaseConfig(this);
        }

        private static void positive(String property, Duration value) {
            if (value == null || value.isNegative() || value.isZero()) {
                throw invalid(property, value, "a positive duration");
            }
        }

        private static IllegalArgumentException invalid(String property, Object value, String expected) {
            return new IllegalArgumentException("leasebox.zookeeper." + property + " = " + value + " is invalid: expected " + expected);
        }
    }
}
