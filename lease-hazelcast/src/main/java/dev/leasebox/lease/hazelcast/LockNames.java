package dev.leasebox.lease.hazelcast;

import dev.leasebox.lease.Lease;

/**
 * The FencedLock a key is leased under: a lock of its own. '%' cannot start an escaped key's
 * '%'-sequence other than %25 and %40, so a manager's own objects ({@code <namespace>/%peers}) never
 * meet a key's name. '@' selects a CP group in Hazelcast, so keys are escaped.
 */
final class LockNames {

    private final String prefix;
    private final String cpGroup;

    LockNames(HazelcastLeaseConfig config) {
        this.prefix = config.namePrefix();
        this.cpGroup = config.cpGroup();
    }

    String of(String key) {
        return inGroup(prefix + key.replace("%", "%25").replace("@", "%40"));
    }

    String of(Lease lease) {
        return of(lease.key());
    }

    private String inGroup(String name) {
        return "default".equals(cpGroup) ? name : name + "@" + cpGroup;
    }
}
