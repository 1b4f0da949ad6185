package dev.leasebox.lease.zookeeper;

import dev.leasebox.lease.Lease;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The leases this manager granted and still believes it holds, with what a checked write needs: the
 * lease znode's data version, the session that owns it, and the token of the node's incarnation. Only leases found here (same
 * key, owner and fence) are ever renewed or released on the server, so a stale {@link Lease} from
 * an earlier grant never reaches ZooKeeper.
 */
final class HeldLeases {

    /** One held lease: the latest grant or renewal, its node's data version, the owning session, the incarnation token. */
    record Held(Lease lease, int version, long sessionId, String token) {
    }

    private final ConcurrentHashMap<String, Held> byKey = new ConcurrentHashMap<>();

    void put(Lease lease, int version, long sessionId, String token) {
        byKey.put(lease.key(), new Held(lease, version, sessionId, token));
    }

    /** The held entry for exactly this grant, if this manager still holds it. */
    Optional<Held> find(Lease lease) {
        Held held = byKey.get(lease.key());
        return held != null && held.lease().sameGrant(lease) ? Optional.of(held) : Optional.empty();
    }

    /** Forgets {@code held}, unless the key was granted again since. */
    void remove(Held held) {
        byKey.remove(held.lease().key(), held);
    }

    /** Replaces {@code held} by {@code renewed}, unless the entry changed meanwhile. */
    void replace(Held held, Held renewed) {
        byKey.replace(held.lease().key(), held, renewed);
    }

    List<Held> snapshot() {
        return new ArrayList<>(byKey.values());
    }

    /** Forgets everything and returns what was held. */
    List<Lease> removeAll() {
        List<Lease> all = new ArrayList<>();
        for (Held held : snapshot()) {
            if (byKey.remove(held.lease().key(), held)) {
                all.add(held.lease());
            }
        }
        return all;
    }

    int size() {
        return byKey.size();
    }
}
