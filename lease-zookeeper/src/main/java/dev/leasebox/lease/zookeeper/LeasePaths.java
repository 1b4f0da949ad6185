package dev.leasebox.lease.zookeeper;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * Where leases live: {@code /<namespace>/leases/<encoded key>}. Keys are URL-encoded so that any
 * string (with '/', '.', or non-ASCII characters ZooKeeper refuses) names exactly one znode.
 *
 * <p>Each lease node has a companion {@code /<namespace>/incarnations/<token>}, created, and deleted,
 * in the same transaction as that one lease node (or with it when their session ends), where the
 * token is drawn afresh for every node created. Versions restart at 0 in every new node of a key, so
 * they cannot tell two nodes of one key apart; the companion's existence can, and a multi can check
 * it atomically with the write.
 */
final class LeasePaths {

    static final String LEASES = "leases";
    static final String INCARNATIONS = "incarnations";
    static final String MEMBERS = "members";

    private static final Pattern TOKEN = Pattern.compile("[0-9a-f]{32}");

    private final String leasesRoot;
    private final String incarnationsRoot;

    LeasePaths(String namespace) {
        this.leasesRoot = "/" + namespace + "/" + LEASES;
        this.incarnationsRoot = "/" + namespace + "/" + INCARNATIONS;
    }

    String root() {
        return leasesRoot;
    }

    String incarnationsRoot() {
        return incarnationsRoot;
    }

    String of(String key) {
        String encoded = URLEncoder.encode(key, StandardCharsets.UTF_8);
        if (encoded.equals(".") || encoded.equals("..")) {
            encoded = encoded.replace(".", "%2E");
        }
        return leasesRoot + "/" + encoded;
    }

    /** The companion node of the lease node whose data carries {@code token}. */
    String incarnation(String token) {
        return incarnationsRoot + "/" + token;
    }

    /** A fresh incarnation token: 122 random bits (a type-4 UUID) as 32 hex digits. */
    static String newToken() {
        UUID uuid = UUID.randomUUID();
        return String.format("%016x%016x", uuid.getMostSignificantBits(), uuid.getLeastSignificantBits());
    }

    static boolean isToken(String value) {
        return value != null && TOKEN.matcher(value).matches();
    }
}
