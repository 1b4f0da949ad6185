package dev.leasebox.lease.redis;

import dev.leasebox.lease.spi.LeaseBackendSettings;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;

/**
 * Where and how a {@link RedisLeaseManager} talks to Redis; validated when built, each error one
 * line naming the property and the bad value (never a password).
 *
 * <p>Properties (as read by {@link #fromProperties(Properties, String)}, prefix usually
 * {@code leasebox.redis.}):
 * <ul>
 *   <li>{@code uri} (required) — {@code redis://[user[:password]@]host[:port][/database]}, or
 *       {@code rediss://} for TLS. User and password are the Redis ACL user and its password
 *       (URL-encoded); a password alone authenticates the {@code default} user ({@code requirepass}).
 *       With Sentinel, only the scheme, credentials and database are used.</li>
 *   <li>{@code user}, {@code password} — override the URI's credentials, to keep secrets out of URIs.</li>
 *   <li>{@code namespace} (default {@code leasebox}, as on every backend) — prefix of every key, so several
 *       deployments can share one Redis: leases are {@code <namespace>:lease:<key>}, the fence counter {@code <namespace>:fence}.
 *       On Redis Cluster write it as a hash tag, e.g. {@code {orders}}: every key of the namespace
 *       then hashes to one slot, which is what lets one Lua script touch them all.</li>
 *   <li>{@code connect-timeout} (default 2s), {@code socket-timeout} (default 2s), durations as
 *       {@link dev.leasebox.lease.spi.Durations} reads them,
 *       {@code pool-size} (default 8; also bounds the wait for a pooled connection to the connect
 *       timeout).</li>
 *   <li>{@code tls-truststore}, {@code tls-truststore-password} — a PKCS12 trust store holding the CA
 *       (or self-signed certificate) Redis presents, for {@code rediss://} only; without it the JVM's
 *       default trust store is used. The certificate is always verified, host name included.</li>
 *   <li>{@code sentinel-master} and {@code sentinel-nodes} ({@code host:port,host:port}) — find the
 *       master through Redis Sentinel instead of the URI's host; both or neither. The Sentinels
 *       themselves are asked without TLS or credentials; the master gets the URI's.</li>
 * </ul>
 */
public final class RedisLeaseConfig {

    /** One Sentinel to ask for the current master. */
    public record SentinelNode(String host, int port) {
        @Override
        public String toString() {
            return host + ":" + port;
        }
    }

    private final RedisUri uri;
    private final boolean tls;
    private final String host;
    private final int port;
    private final int database;
    private final String user;
    private final String password;
    private final String namespace;
    private final Duration connectTimeout;
    private final Duration socketTimeout;
    private final int poolSize;
    private final String sentinelMaster;
    private final List<SentinelNode> sentinelNodes;
    private final Path trustStore;
    private final String trustStorePassword;

    private RedisLeaseConfig(Builder b) {
        this.uri = RedisUri.parse(b.uri);
        this.tls = uri.tls();
        this.host = uri.host();
        this.port = uri.port();
        this.database = uri.database();
        this.user = b.user != null ? b.user : uri.user();
        this.password = b.password != null ? b.password : uri.password();
        this.namespace = validNamespace(b.namespace);
        this.connectTimeout = positive("connect-timeout", b.connectTimeout);
        this.socketTimeout = positive("socket-timeout", b.socketTimeout);
        if (b.poolSize < 1) {
            throw invalid("pool-size", "must be at least 1", Integer.toString(b.poolSize));
        }
        this.poolSize = b.poolSize;
        this.sentinelMaster = b.sentinelMaster == null || b.sentinelMaster.isBlank() ? null : b.sentinelMaster.trim();
        this.sentinelNodes = List.copyOf(b.sentinelNodes);
        if (sentinelMaster != null && sentinelNodes.isEmpty()) {
            throw invalid("sentinel-nodes", "must name at least one host:port when sentinel-master is set", "");
        }
        if (sentinelMaster == null && !sentinelNodes.isEmpty()) {
            throw invalid("sentinel-master", "must name the monitored master when sentinel-nodes is set", "");
        }
        this.trustStore = b.trustStore;
        this.trustStorePassword = b.trustStorePassword;
        if (trustStore != null && !tls) {
            throw invalid("tls-truststore", "is set but the uri is not rediss:// (TLS)", trustStore.toString());
        }
        if (trustStore != null && !Files.isReadable(trustStore)) {
            throw invalid("tls-truststore", "is not a readable file", trustStore.toString());
        }
        if (sentinelMaster == null && host.isEmpty()) {
            throw invalid("uri", "must name a host", uri.toString());
        }
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * Reads {@code <prefix>uri}, {@code <prefix>namespace}, … (see the class comment) from
     * {@code properties}; absent optional properties keep their defaults.
     */
    public static RedisLeaseConfig fromProperties(Properties properties, String prefix) {
        return RedisConfigProperties.read(properties, prefix);
    }

    /** Parses {@code host:port,host:port}. */
    public static List<SentinelNode> parseNodes(String nodes) {
        return RedisConfigProperties.parseNodes(nodes);
    }

    public boolean tls() {
        return tls;
    }

    public String host() {
        return host;
    }

    public int port() {
        return port;
    }

    public int database() {
        return database;
    }

    /** The ACL user, if one is configured. */
    public Optional<String> user() {
        return Optional.ofNullable(user);
    }

    /** The password, if one is configured. Never logged. */
    public Optional<String> password() {
        return Optional.ofNullable(password);
    }

    public String namespace() {
        return namespace;
    }

    public Duration connectTimeout() {
        return connectTimeout;
    }

    public Duration socketTimeout() {
        return socketTimeout;
    }

    public int poolSize() {
        return poolSize;
    }

    /** The Sentinel master name, when the master is found through Sentinel. */
    public Optional<String> sentinelMaster() {
        return Optional.ofNullable(sentinelMaster);
    }

    public List<SentinelNode> sentinelNodes() {
        return sentinelNodes;
    }

    /** The PKCS12 trust store for TLS, when one is configured (else the JVM's default). */
    public Optional<Path> tlsTrustStore() {
        return Optional.ofNullable(trustStore);
    }

    /** The trust store's password (empty when none); never logged. */
    public String tlsTrustStorePassword() {
        return trustStorePassword == null ? "" : trustStorePassword;
    }

    /** The address tried, for messages: scheme, user, host and port or Sentinel master; never the password. */
    public String address() {
        String scheme = tls ? "rediss" : "redis";
        String who = user == null ? "" : user + "@";
        if (sentinelMaster != null) {
            return scheme + "://" + who + sentinelMaster + "/" + database + " via Sentinel " + sentinelNodes;
        }
        return scheme + "://" + who + host + ":" + port + "/" + database;
    }

    @Override
    public String toString() {
        return "RedisLeaseConfig[" + address() + ", namespace=" + namespace + ", connectTimeout=" + connectTimeout
                + ", socketTimeout=" + socketTimeout + ", poolSize=" + poolSize + "]";
    }

    private static String validNamespace(String value) {
        if (value == null || value.isBlank()) {
            throw invalid("namespace", "must not be blank (the key prefix of this deployment, e.g. orders or {orders})", "");
        }
        if (!value.equals(value.strip()) || value.chars().anyMatch(Character::isWhitespace)) {
            throw invalid("namespace", "must not contain whitespace", value);
        }
        int open = value.indexOf('{');
        if (open >= 0) {
            int close = value.indexOf('}', open + 1);
            if (close < 0 || close == open + 1) {
                throw invalid("namespace", "opens a hash tag '{' without a non-empty '{...}'", value);
            }
        }
        return value;
    }

    private static Duration positive(String property, Duration value) {
        Objects.requireNonNull(value, property);
        if (value.toMillis() < 1 || value.toMillis() > Integer.MAX_VALUE) {
            throw invalid(property, "must be between 1ms and " + Integer.MAX_VALUE + "ms", dev.leasebox.lease.spi.Durations.format(value));
        }
        return value;
    }

    /** One line naming the property, the problem and the value (passwords already masked). */
    static IllegalArgumentException invalid(String property, String problem, String value) {
        return new IllegalArgumentException("Redis lease configuration: " + property + " " + problem
                + (value.isEmpty() ? "" : ", was '" + value + "'"));
    }

    /** Builds a {@link RedisLeaseConfig}; {@link #build()} validates. */
    public static final class Builder {
        private String uri;
        private String user;
        private String password;
        private String namespace = LeaseBackendSettings.DEFAULT_NAMESPACE;
        private Duration connectTimeout = Duration.ofSeconds(2);
        private Duration socketTimeout = Duration.ofSeconds(2);
        private int poolSize = 8;
        private String sentinelMaster;
        private List<SentinelNode> sentinelNodes = List.of();
        private Path trustStore;
        private String trustStorePassword;

        private Builder() {
        }

        /** A PKCS12 trust store for {@code rediss://}; {@code password} may be empty. */
        public Builder tlsTrustStore(Path trustStore, String password) {
            this.trustStore = Objects.requireNonNull(trustStore, "trustStore");
            this.trustStorePassword = Objects.requireNonNull(password, "password");
            return this;
        }

        public Builder uri(String uri) {
            this.uri = uri;
            return this;
        }

        public Builder user(String user) {
            this.user = Objects.requireNonNull(user, "user");
            return this;
        }

        public Builder password(String password) {
            this.password = Objects.requireNonNull(password, "password");
            return this;
        }

        /**
         * Separates deployments sharing one Redis (default {@code leasebox}, as on every backend): every key starts
         * with {@code <namespace>:}. A manager opened by name ({@code --namespace}, Spring's {@code leasebox.namespace})
         * with the same namespace uses the same keys.
         */
        public Builder namespace(String namespace) {
            this.namespace = namespace;
            return this;
        }

        public Builder connectTimeout(Duration connectTimeout) {
            this.connectTimeout = connectTimeout;
            return this;
        }

        public Builder socketTimeout(Duration socketTimeout) {
            this.socketTimeout = socketTimeout;
            return this;
        }

        public Builder poolSize(int poolSize) {
            this.poolSize = poolSize;
            return this;
        }

        public Builder sentinel(String masterName, List<SentinelNode> nodes) {
            this.sentinelMaster = masterName;
            this.sentinelNodes = List.copyOf(nodes);
            return this;
        }

        public RedisLeaseConfig build() {
            return new RedisLeaseConfig(this);
        }
    }
}
