package dev.leasebox.lease.redis;

import dev.leasebox.lease.redis.RedisLeaseConfig.SentinelNode;

import dev.leasebox.lease.spi.Durations;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

import static dev.leasebox.lease.redis.RedisLeaseConfig.invalid;

/**
 * A {@link RedisLeaseConfig} read from properties (the names are in its class comment): connection
 * options, TLS trust store and Sentinel options, each number and node list checked as it is read.
 */
final class RedisConfigProperties {

    private RedisConfigProperties() {
    }

    /** See {@link RedisLeaseConfig#fromProperties(Properties, String)}. */
    static RedisLeaseConfig read(Properties properties, String prefix) {
        RedisLeaseConfig.Builder b = RedisLeaseConfig.builder();
        b.uri(properties.getProperty(prefix + "uri"));
        String namespace = properties.getProperty(prefix + "namespace");
        if (namespace != null) {
            b.namespace(namespace);
        }
        String user = properties.getProperty(prefix + "user");
        if (user != null) {
            b.user(user);
        }
        String password = properties.getProperty(prefix + "password");
        if (password != null) {
            b.password(password);
        }
        String connect = properties.getProperty(prefix + "connect-timeout");
        if (connect != null) {
            b.connectTimeout(Durations.parse(prefix + "connect-timeout", connect));
        }
        String socket = properties.getProperty(prefix + "socket-timeout");
        if (socket != null) {
            b.socketTimeout(Durations.parse(prefix + "socket-timeout", socket));
        }
        String pool = properties.getProperty(prefix + "pool-size");
        if (pool != null) {
            b.poolSize(integer(prefix + "pool-size", pool));
        }
        String trustStore = properties.getProperty(prefix + "tls-truststore");
        if (trustStore != null) {
            b.tlsTrustStore(Path.of(trustStore), properties.getProperty(prefix + "tls-truststore-password", ""));
        }
        String master = properties.getProperty(prefix + "sentinel-master");
        String nodes = properties.getProperty(prefix + "sentinel-nodes");
        if (master != null || nodes != null) {
            b.sentinel(master, nodes == null ? List.of() : parseNodes(nodes));
        }
        return b.build();
    }

    /** See {@link RedisLeaseConfig#parseNodes(String)}. */
    static List<SentinelNode> parseNodes(String nodes) {
        List<SentinelNode> parsed = new ArrayList<>();
        for (String node : nodes.split(",")) {
            String trimmed = node.trim();
            int colon = trimmed.lastIndexOf(':');
            if (colon <= 0 || colon == trimmed.length() - 1) {
                throw invalid("sentinel-nodes", "must be a comma-separated list of host:port", nodes);
            }
            int nodePort = integer("sentinel-nodes", trimmed.substring(colon + 1));
            if (nodePort < 1 || nodePort > 65535) {
                throw invalid("sentinel-nodes", "has a port outside 1..65535", nodes);
            }
            parsed.add(new SentinelNode(trimmed.substring(0, colon), nodePort));
        }
        return parsed;
    }

    private static int integer(String property, String value) {
        try {
            return Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            throw invalid(property, "must be an integer", value);
        }
    }
}
