package dev.leasebox.lease.zookeeper;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;

/**
 * Where leases live: {@code /<namespace>/leases/<encoded key>}. Keys are URL-encoded so that any
 * string (with '/', '.', or non-ASCII characters ZooKeeper refuses) names exactly one znode.
 */
final class LeasePaths {

    static final String LEASES = "leases";
    static final String MEMBERS = "members";

    private final String leasesRoot;

    LeasePaths(String namespace) {
        this.leasesRoot = "/" + namespace + "/" + LEASES;
    }

    String root() {
        return leasesRoot;
    }

    String of(String key) {
        String encoded = URLEncoder.encode(key, StandardCharsets.UTF_8);
        if (encoded.equals(".") || encoded.equals("..")) {
            encoded = encoded.replace(".", "%2E");
        }
        return leasesRoot + "/" + encoded;
    }
}
