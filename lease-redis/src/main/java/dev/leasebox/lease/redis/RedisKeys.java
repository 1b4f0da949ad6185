package dev.leasebox.lease.redis;

/**
 * The key layout of one namespace: {@code <namespace>:lease:<key>} per lease and one fence counter
 * {@code <namespace>:fence}; wake-up hints travel on channels {@code <namespace>:wake-up:<topic>}. Because the namespace comes first, a namespace written as a hash tag
 * ({@code {orders}}) puts every key of the namespace in one Redis Cluster slot: the first
 * {@code {...}} of a key decides its slot, and a lease key's own braces come after the namespace's.
 */
record RedisKeys(String namespace) {

    String lease(String key) {
        return namespace + ":lease:" + key;
    }

    String fenceCounter() {
        return namespace + ":fence";
    }

    /** The pub/sub channel of a wake-up topic (channels are not keys: no Cluster slot, no expiry). */
    String wakeUpChannel(String topic) {
        return namespace + ":wake-up:" + java.util.Objects.requireNonNull(topic, "topic");
    }

    /** What a grant stores under its lease key: the fence first, so an owner may contain ':'. */
    static String holderValue(long fence, String owner) {
        return fence + ":" + owner;
    }
}
