package dev.leasebox.lease.redis;

import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisNoScriptException;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;

/**
 * One of the manager's Lua scripts, run by its SHA-1 ({@code EVALSHA}: one round trip, the script
 * text not resent). Redis forgets its script cache on restart, failover and {@code SCRIPT FLUSH};
 * then the call is repeated once as {@code EVAL} with the full text, which runs it and caches it
 * again, so a flushed cache costs one extra round trip and never a failure.
 */
enum LeaseScript {

    ACQUIRE("acquire.lua"),
    RENEW("renew.lua"),
    RELEASE("release.lua"),
    RAISE_FENCE_FLOOR("raise_fence_floor.lua");

    private final String source;
    private final String sha1;

    LeaseScript(String resource) {
        this.source = load(resource);
        this.sha1 = sha1Hex(source);
    }

    Object run(UnifiedJedis redis, List<String> keys, List<String> args) {
        try {
            return redis.evalsha(sha1, keys, args);
        } catch (JedisNoScriptException e) {
            return redis.eval(source, keys, args);
        }
    }

    /** Caches the script on the server so that the first real call is already a single EVALSHA. */
    void preload(UnifiedJedis redis) {
        redis.scriptLoad(source);
    }

    String sha1() {
        return sha1;
    }

    private static String load(String resource) {
        try (InputStream in = LeaseScript.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("Lua script " + resource + " missing from the lease-redis jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("could not read Lua script " + resource, e);
        }
    }

    private static String sha1Hex(String text) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 unavailable", e);
        }
    }
}
