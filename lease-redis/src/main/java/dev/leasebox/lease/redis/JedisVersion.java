package dev.leasebox.lease.redis;

import dev.leasebox.lease.spi.ClientVersionException;

/**
 * Refuses a Jedis without {@code RedisClient} (added in 7.2), in one line that says which version to pin.
 * A build whose dependency management picks Jedis (Spring Boot 3.5 manages Jedis 6.0, Boot 4.0 manages
 * 7.0; Boot 4.1's 7.4 passes) would otherwise fail at the first connection with a bare
 * {@code NoClassDefFoundError}.
 */
final class JedisVersion {

    /** The Jedis lease-redis is built and tested with. */
    static final String BUILT_WITH = "8.0.2";

    /** A class of Jedis 7.2 and later that lease-redis opens its own connections with. */
    private static final String CLIENT_CLASS = "redis.clients.jedis.RedisClient";

    private JedisVersion() {
    }

    /** @throws ClientVersionException naming the Jedis found and the version to pin, when it is older than 7.2 */
    static void requireSupported(ClassLoader loader) {
        try {
            Class.forName(CLIENT_CLASS, false, loader);
        } catch (ClassNotFoundException | LinkageError e) {
            String found = found(loader);
            throw new ClientVersionException("lease-redis needs Jedis 7.2 or later (built with redis.clients:jedis " + BUILT_WITH
                    + "), but the class path has Jedis " + found + ": pin jedis " + BUILT_WITH
                    + " (Spring Boot's dependency management picks Jedis: set the property jedis.version=" + BUILT_WITH
                    + " in your Maven <properties> or Gradle ext)", "redis.clients:jedis", found, "jedis.version", BUILT_WITH);
        }
    }

    /** The version Jedis's own jar declares, or "older than 7.2" when it declares none. */
    static String found(ClassLoader loader) {
        return ClientVersionException.declaredVersion(loader, "redis/clients/jedis/pom.properties", "older than 7.2");
    }
}
