package dev.leasebox.lease.spi;

import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.TreeMap;

/** The lease backends on the class path. */
public final class LeaseBackends {

    /** Every backend Leasebox ships, with the module that provides it. */
    public static final Map<String, String> KNOWN = Map.of(
            "zookeeper", "lease-zookeeper",
            "redis", "lease-redis",
            "hazelcast", "lease-hazelcast");

    private LeaseBackends() {
    }

    /** The backends found on the class path, by name. */
    public static Map<String, LeaseBackend> available() {
        Map<String, LeaseBackend> found = new TreeMap<>();
        for (LeaseBackend backend : ServiceLoader.load(LeaseBackend.class)) {
            found.put(backend.name(), backend);
        }
        return found;
    }

    /**
     * The backend called {@code name}; fails with one line naming what is available and, for a known
     * backend that is missing, the module to add.
     */
    public static LeaseBackend named(String name) {
        Map<String, LeaseBackend> available = available();
        LeaseBackend backend = available.get(name);
        if (backend != null) {
            return backend;
        }
        List<String> names = List.copyOf(available.keySet());
        String module = KNOWN.get(name);
        if (module != null) {
            throw new IllegalArgumentException("lease backend '" + name + "' is not on the class path: add the module "
                    + module + " (available: " + names + ")");
        }
        throw new IllegalArgumentException("unknown lease backend '" + name + "': choose one of " + names);
    }
}
