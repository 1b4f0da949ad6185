package dev.leasebox.cli;

import dev.leasebox.claim.LeaseGrouping;
import dev.leasebox.claim.leased.LeasedOutboxClaimStore;
import dev.leasebox.jdbc.store.JdbcOutboxStore;
import dev.leasebox.lease.LeaseManager;
import dev.leasebox.lease.LeaseManagerException;
import dev.leasebox.lease.MonotonicClock;
import dev.leasebox.lease.spi.LeaseBackendSettings;
import dev.leasebox.lease.spi.LeaseBackends;
import dev.leasebox.metrics.MeteredLeaseManager;
import dev.leasebox.outbox.OutboxClaimStore;
import io.micrometer.core.instrument.MeterRegistry;
import picocli.CommandLine.Option;

import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Which lease backend a worker claims through, and where its coordinator is. */
final class BackendOptions {

    static final String DATABASE = "database";

    @Option(names = "--backend", defaultValue = DATABASE, paramLabel = "database|zookeeper|redis|hazelcast",
            description = "Where leases live: the database itself (the default), or an external coordinator.")
    String backend;

    @Option(names = "--zookeeper", paramLabel = "CONNECT", description = "ZooKeeper connect string, e.g. 127.0.0.1:2181.")
    String zookeeper;

    @Option(names = "--redis", paramLabel = "URI", description = "Redis URI, e.g. redis://user:pass@127.0.0.1:6379 or rediss://…")
    String redis;

    @Option(names = "--hazelcast", paramLabel = "ADDRESSES", description = "Hazelcast members, e.g. 127.0.0.1:5701,127.0.0.1:5702.")
    String hazelcast;

    @Option(names = "--namespace", paramLabel = "NS", defaultValue = "leasebox",
            description = "Separates deployments sharing one coordinator (default: ${DEFAULT-VALUE}).")
    String namespace;

    @Option(names = "--backend-option", paramLabel = "NAME=VALUE",
            description = "A backend-specific setting (repeatable, kebab-case), e.g. session-timeout=10s; row-groups=N, row-group-block=N "
                    + "and row-group-linger=500ms group rows under shared leases on any backend (on by default for hazelcast and "
                    + "zookeeper, row-groups=0 turns it off).")
    Map<String, String> backendOptions = new LinkedHashMap<>();

    /** The coordinator address for the chosen backend, or a one-line error naming the option to give. */
    String address() {
        backend = backend.toLowerCase(java.util.Locale.ROOT);
        String address;
        String option;
        switch (backend) {
            case "zookeeper" -> {
                address = zookeeper;
                option = "--zookeeper CONNECT";
            }
            case "redis" -> {
                address = redis;
                option = "--redis URI";
            }
            case "hazelcast" -> {
                address = hazelcast;
                option = "--hazelcast ADDRESSES";
            }
            default -> throw new IllegalArgumentException("unknown --backend '" + backend
                    + "': choose database, zookeeper, redis or hazelcast");
        }
        if (address == null || address.isBlank()) {
            throw new IllegalArgumentException("--backend " + backend + " needs " + option);
        }
        return address;
    }

    boolean isDatabase() {
        return DATABASE.equalsIgnoreCase(backend);
    }

    /** Validates the choice before anything is opened: unknown or missing backends fail here. */
    void validate() {
        backend = backend.toLowerCase(java.util.Locale.ROOT); // --backend Redis is redis
        if (isDatabase()) {
            if (!backendOptions.isEmpty()) {
                throw new IllegalArgumentException("--backend-option " + String.join(", ", backendOptions.keySet())
                        + ": --backend database takes no backend options; drop them or choose an external backend");
            }
            return;
        }
        address();
        LeaseBackends.named(backend);
    }

    /** How the chosen external backend's rows share leases, as its {@code --backend-option}s say. */
    LeaseGrouping rowGrouping() {
        return LeaseGrouping.forBackend(backend, backendOptions);
    }

    /** The lease manager for the chosen external backend, metered; empty for {@code database}. */
    Optional<MeteredLeaseManager> openManager(Duration leaseTtl, MeterRegistry registry) {
        if (isDatabase()) {
            return Optional.empty();
        }
        LeaseManager manager;
        try {
            // rows grouped under shared leases where LeaseGrouping.forBackend says (hazelcast by default)
            manager = LeaseGrouping.open(backend, new LeaseBackendSettings(address(), namespace, leaseTtl, backendOptions),
                    MonotonicClock.system());
        } catch (LeaseManagerException e) {
            throw new LeaseManagerException(inCliTerms(backend, e.getMessage()), e);
        }
        return Optional.of(new MeteredLeaseManager(manager, registry));
    }

    private static final Pattern CONFIG_KEY = Pattern.compile("leasebox\\.(zookeeper|redis|hazelcast)\\.([a-z][a-z-]*)");
    private static final Pattern ISO_DURATION = Pattern.compile("\\bPT[0-9HMS.]+\\b");
    private static final Set<String> ADDRESS_KEYS = Set.of("connect-string", "uri", "addresses");

    /**
     * A backend's message in the command's words: its configuration keys ({@code leasebox.zookeeper.connect-string})
     * become the flags that set them ({@code --zookeeper}, {@code --backend-option session-timeout=…}), ISO-8601
     * durations become {@code 10s}.
     */
    static String inCliTerms(String backend, String message) {
        if (message == null) {
            return null;
        }
        Matcher key = CONFIG_KEY.matcher(message);
        StringBuilder text = new StringBuilder();
        while (key.find()) {
            String flag = ADDRESS_KEYS.contains(key.group(2)) ? "--" + key.group(1)
                    : "namespace".equals(key.group(2)) ? "--namespace" : "--backend-option " + key.group(2) + "=…";
            key.appendReplacement(text, Matcher.quoteReplacement(flag));
        }
        key.appendTail(text);
        Matcher duration = ISO_DURATION.matcher(text.toString());
        StringBuilder result = new StringBuilder();
        while (duration.find()) {
            String written;
            try {
                written = DurationConverter.format(java.time.Duration.parse(duration.group()));
            } catch (java.time.format.DateTimeParseException notADuration) {
                written = duration.group();
            }
            duration.appendReplacement(result, Matcher.quoteReplacement(written));
        }
        duration.appendTail(result);
        return result.toString();
    }

    /** The claim store: the JDBC store itself for {@code database}, else leases layered over it (product defaults). */
    static OutboxClaimStore claimStore(JdbcOutboxStore jdbc, Optional<? extends LeaseManager> manager, Clock clock) {
        if (manager.isEmpty()) {
            return jdbc;
        }
        return LeasedOutboxClaimStore.open(jdbc, manager.get(), clock);
    }

    /** As {@link #claimStore(JdbcOutboxStore, Optional, Clock)}, with the claim mode and release policy of {@code claimPath}. */
    static OutboxClaimStore claimStore(JdbcOutboxStore jdbc, Optional<? extends LeaseManager> manager, Clock clock,
                                       ClaimPathOptions claimPath) {
        if (manager.isEmpty()) {
            return jdbc;
        }
        return LeasedOutboxClaimStore.builder(jdbc, manager.get(), clock).claimMode(claimPath.claimMode())
                .releaseAfterCompletion(claimPath.releaseAfterCompletion()).releaseInBackground(claimPath.releaseInBackground())
                .candidateOverAsk(claimPath.candidateOverAsk()).open();
    }

    String describe(Optional<? extends LeaseManager> manager) {
        return manager.map(LeaseManager::describe).orElse("database (FOR UPDATE SKIP LOCKED / optimistic claims)");
    }
}
