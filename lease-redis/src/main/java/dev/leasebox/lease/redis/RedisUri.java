package dev.leasebox.lease.redis;

import dev.leasebox.lease.spi.Redacted;

import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;

import static dev.leasebox.lease.redis.RedisLeaseConfig.invalid;

/**
 * A {@code redis://[user[:password]@]host[:port][/database]} or {@code rediss://} URI taken apart:
 * TLS or not, host (empty when absent), port (6379 when absent), database (0 when absent) and the
 * credentials of its user info, {@code user} and {@code password} null when absent. A message, and
 * {@link #toString()}, quote the URI with its password masked.
 */
record RedisUri(URI uri, boolean tls, String host, int port, int database, String user, String password) {

    /** Parses and checks {@code value}, failing with one line naming the {@code uri} property. */
    static RedisUri parse(String value) {
        URI uri = parseUri(value);
        boolean tls = "rediss".equals(uri.getScheme());
        String host = uri.getHost() == null ? "" : uri.getHost();
        int port = uri.getPort() == -1 ? 6379 : uri.getPort();
        int database = parseDatabase(uri);
        String[] credentials = credentials(uri);
        return new RedisUri(uri, tls, host, port, database, credentials[0], credentials[1]);
    }

    /** The URI with its password masked. */
    @Override
    public String toString() {
        return Redacted.uriCredentials(uri.toString());
    }

    private static URI parseUri(String value) {
        if (value == null || value.isBlank()) {
            throw invalid("uri", "is required (redis://[user[:password]@]host[:port][/database] or rediss:// for TLS)", "");
        }
        URI parsed;
        try {
            parsed = new URI(value.trim());
        } catch (URISyntaxException e) {
            throw invalid("uri", "is not a valid URI", Redacted.uriCredentials(value));
        }
        if (!"redis".equals(parsed.getScheme()) && !"rediss".equals(parsed.getScheme())) {
            throw invalid("uri", "must start with redis:// or rediss:// (TLS)", Redacted.uriCredentials(value));
        }
        if (parsed.getPort() != -1 && (parsed.getPort() < 1 || parsed.getPort() > 65535)) {
            throw invalid("uri", "has a port outside 1..65535", Redacted.uriCredentials(value));
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
        throw invalid("uri", "has a database path that is not a non-negative number",
                Redacted.uriCredentials(uri.toString()));
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
}
