package dev.leasebox.lease.redis;

import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
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
 *   <li>{@code namespace} (required) — prefix of every key, so several deployments can share one
 *       Redis: leases are {@code <namespace>:lease:<key>}, the fence counter {@code <namespace>:fence}.
 *       On Redis Cluster write it as a hash tag, e.g. {@code {orders}}: every key of the namespace
 *       then hashes to one slot, which is what lets one Lua script touch them all.</li>
 *   <li>{@code connect-timeout-ms} (default 2000), {@code socket-timeout-ms} (default 2000),
 *       {@code pool-size} (default 8; also bounds the wait for a pooled connection to the connect
 *       timeout).</li>
 *   <li>{@code tls.truststore}, {@code tls.truststore-password} — a PKCS12 trust store holding the CA
 *       (or self-signed certificate) Redis presents, for {@code rediss://} only; without it the JVM's
 *       default trust store is used. The certificate is always verified, host name included.</li>
 *   <li>{@code sentinel.master} and {@code sentinel.nodes} ({@code host:port,host:port}) — find the
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

    private final URI uri;
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
        this.uri = parseUri(b.uri);
        this.tls = "rediss".equals(uri.getScheme());
        this.host = uri.getHost() == null ? "" : uri.getHost();
        this.port = uri.getPort() == -1 ? 6379 : uri.getPort();
        this.database = parseDatabase(uri);
        String[] credentials = credentials(uri);
        this.user = b.user != null ? b.user : credentials[0];
        this.password = b.password != null ? b.password : credentials[1];
        this.namespace = validNamespace(b.namespace);
        this.connectTimeout = positive("connect-timeout-ms", b.connectTimeout);
        this.socketTimeout = positive("socket-timeout-ms", b.socketTimeout);
        if (b.poolSize < 1) {
            throw invalid("pool-size", "must be at least 1", Integer.toString(b.poolSize));
        }
        this.poolSize = b.poolSize;
        this.sentinelMaster = b.sentinelMaster == null || b.sentinelMaster.isBlank() ? null : b.sentinelMaster.trim();
        this.sentinelNodes = List.copyOf(b.sentinelNodes);
        if (sentinelMaster != null && sentinelNodes.isEmpty()) {
            throw invalid("sentinel.nodes", "must name at least one host:port when sentinel.master is set", "");
        }
        if (sentinelMaster == null && !sentinelNodes.isEmpty()) {
            throw invalid("sentinel.master", "must name the monitored master when sentinel.nodes is set", "");
        }
        this.trustStore = b.trustStore;
        this.trustStorePassword = b.trustStorePassword;
        if (trustStore != null && !tls) {
            throw invalid("tls.truststore", "is set but the uri is not rediss:// (TLS)", trustStore.toString());
        }
        if (trustStore != null && !Files.isReadable(trustStore)) {
            throw invalid("tls.truststore", "is not a readable file", trustStore.toString());
        }
        if (sentinelMaster == null && host.isEmpty()) {
            throw invalid("uri", "must name a host", redacted(uri));
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
        Builder b = builder();
        b.uri(properties.getProperty(prefix + "uri"));
        b.namespace(properties.getProperty(prefix + "namespace"));
        String user = properties.getProperty(prefix + "user");
        if (user != null) {
            b.user(user);
        }
        String password = properties.getProperty(prefix + "password");
        if (password != null) {
            b.password(password);
        }
        String connect = properties.getProperty(prefix + "connect-timeout-ms");
        if (connect != null) {
            b.connectTimeout(Duration.ofMillis(integer(prefix + "connect-timeout-ms", connect)));
        }
        String socket = properties.getProperty(prefix + "socket-timeout-ms");
        if (socket != null) {
            b.socketTimeout(Duration.ofMillis(integer(prefix + "socket-timeout-ms", socket)));
        }
        String pool = properties.getProperty(prefix + "pool-size");
        if (pool != null) {
            b.poolSize(integer(prefix + "pool-size", pool));
        }
        String trustStore = properties.getProperty(prefix + "tls.truststore");
        if (trustStore != null) {
            b.tlsTrustStore(Path.of(trustStore), properties.getProperty(prefix + "tls.truststore-password", ""));
        }
        String master = properties.getProperty(prefix + "sentinel.master");
        String nodes = properties.getProperty(prefix + "sentinel.nodes");
        if (master != null || nodes != null) {
            b.sentinel(master, nodes == null ? List.of() : parseNodes(nodes));
        }
        return b.build();
    }

    /** Parses {@code host:port,host:port}. */
    public static List<SentinelNode> parseNodes(String nodes) {
        List<SentinelNode> parsed = new ArrayList<>();
        for (String node : nodes.split(",")) {
            String trimmed = node.trim();
            int colon = trimmed.lastIndexOf(':');
            if (colon <= 0 || colon == trimmed.length() - 1) {
                throw invalid("sentinel.nodes", "must be a comma-separated list of host:port", nodes);
            }
            int nodePort = integer("sentinel.nodes", trimmed.substring(colon + 1));
            if (nodePort < 1 || nodePort > 65535) {
                throw invalid("sentinel.nodes", "has a port outside 1..65535", nodes);
            }
            parsed.add(new SentinelNode(trimmed.substring(0, colon), nodePort));
        }
        return parsed;
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

    private static URI parseUri(String value) {
        if (value == null || value.isBlank()) {
            throw invalid("uri", "is required (redis://[user[:password]@]host[:port][/database] or rediss:// for TLS)", "");
        }
        URI parsed;
        try {
            parsed = new URI(value.trim());
        } catch (URISyntaxException e) {
            throw invalid("uri", "is not a valid URI", redacted(value));
        }
        if (!"redis".equals(parsed.getScheme()) && !"rediss".equals(parsed.getScheme())) {
            throw invalid("uri", "must start with redis:// or rediss:// (TLS)", redacted(value));
        }
        if (parsed.getPort() != -1 && (parsed.getPort() < 1 || parsed.getPort() > 65535)) {
            throw invalid("uri", "has a port outside 1..65535", redacted(value));
        }
        return parsed;
    }

    private static int parseDatabase(URI uri) {
        String path = uri.getPath();
        if (path == null || path.isEmpty() || "/".equals(path)) {
            return 0;
        }
        try {
            int db = Integer.parseInt(path.substring(1));
            if (db >= 0) {
                return db;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw invalid("uri", "has a database path that is not a non-negative number", redacted(uri));
    }

    /** {user, password} from the URI's user info; a lone value is the password (requirepass style). */
    private static String[] credentials(URI uri) {
        String info = uri.getRawUserInfo();
        if (info == null || info.isEmpty()) {
            return new String[] {null, null};
        }
        int colon = info.indexOf(':');
        if (colon < 0) {
            return new String[] {null, decode(info)};
        }
        String u = info.substring(0, colon);
        return new String[] {u.isEmpty() ? null : decode(u), decode(info.substring(colon + 1))};
    }

    private static String decode(String value) {
        return URLDecoder.decode(value.replace("+", "%2B"), StandardCharsets.UTF_8);
    }

    private static String validNamespace(String value) {
        if (value == null || value.isBlank()) {
            throw invalid("namespace", "is required (the key prefix of this deployment, e.g. orders or {orders})", "");
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
            throw invalid(property, "must be between 1 and " + Integer.MAX_VALUE + " ms", Long.toString(value.toMillis()));
        }
        return value;
    }

    private static int integer(String property, String value) {
        try {
            return Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            throw invalid(property, "must be an integer", value);
        }
    }

    static String redacted(Object uri) {
        return uri.toString().replaceAll("(://[^:@/]*:)[^@/]*@", "$1***@").replaceAll("(://)([^:@/]+)@", "$1***@");
    }

    private static IllegalArgumentException invalid(String property, String problem, String value) {
        return new IllegalArgumentException("Redis lease configuration: " + property + " " + problem
                + (value.isEmpty() ? "" : ", was '" + value + "'"));
    }

    /** Builds a {@link RedisLeaseConfig}; {@link #build()} validates. */
    public static final class Builder {
        private String uri;
        private String user;
        private String password;
        private String namespace;
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
