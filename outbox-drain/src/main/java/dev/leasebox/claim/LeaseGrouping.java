package dev.leasebox.claim;

import dev.leasebox.claim.grouped.GroupedLeaseManager;
import dev.leasebox.lease.LeaseManager;
import dev.leasebox.lease.spi.Durations;
import dev.leasebox.lease.spi.LeaseBackendSettings;
import dev.leasebox.lease.spi.LeaseBackends;

import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * How a {@link GroupedLeaseManager} groups the drain's rows: row {@code id} is leased under group key
 * {@code row-group-<(id / block) mod groups>}, and a group left with no row lingers, held, for
 * {@code linger} before its lease is released. {@code groups == 0} is {@link #NONE}: a lease per row.
 *
 * <p>Every worker of one namespace must use the same block and groups: two workers mapping one row to
 * different groups could both be granted it (the rows' fence checks still refuse the stale writer's
 * completion, but the lease no longer keeps them apart). Recorded claims still exclude each other through
 * the row; with lean claims the table's claim-style registry refuses a worker whose {@link #rowKeys} differ
 * from the live workers'.
 *
 * <p>As backend options ({@code --backend-option}, Spring's {@code leasebox.backend-options.*}), for any backend:
 * {@code row-groups=N} (how many group keys, 0 for a lease per row), {@code row-group-block=N} (consecutive rows
 * that map to one group) and {@code row-group-linger=500ms} (a duration as {@link Durations} reads it). The drain groups
 * rows by default ({@link #DEFAULT}) on Hazelcast, whose coordinator keeps every lock it ever created, and
 * on ZooKeeper, whose every lease is a replicated write; on the other backends only when one of these
 * options is given ({@link #GROUPED_BY_DEFAULT}).
 *
 * @param block  consecutive rows per group, 1..1024
 * @param groups group keys rows are spread over, 0..65536 (0: no grouping)
 * @param linger how long an idle group stays held, 0..10 s
 */
public record LeaseGrouping(int block, int groups, Duration linger) {

    public static final int DEFAULT_BLOCK = 128;
    public static final int DEFAULT_GROUPS = 4_096;
    public static final Duration DEFAULT_LINGER = Duration.ofMillis(500);
    public static final int MAX_BLOCK = 1_024;
    public static final int MAX_GROUPS = 65_536;
    public static final Duration MAX_LINGER = Duration.ofSeconds(10);
    /** 4,096 groups of 128 rows, lingering 500 ms. */
    public static final LeaseGrouping DEFAULT = new LeaseGrouping(DEFAULT_BLOCK, DEFAULT_GROUPS, DEFAULT_LINGER);
    /** A lease per row. */
    public static final LeaseGrouping NONE = new LeaseGrouping(1, 0, Duration.ZERO);

    /** The backend option that sets {@link #groups()}: how many group keys rows are spread over (0: a lease per row). */
    public static final String GROUPS_OPTION = "row-groups";
    /** The backend option that sets {@link #block()}: how many consecutive rows map to one group. */
    public static final String BLOCK_OPTION = "row-group-block";
    /** The backend option that sets {@link #linger()}: how long a group left with no row stays held. */
    public static final String LINGER_OPTION = "row-group-linger";
    public static final Set<String> OPTIONS = Set.of(GROUPS_OPTION, BLOCK_OPTION, LINGER_OPTION);
    /**
     * The backends whose rows are grouped unless an option says otherwise: Hazelcast, whose CP group keeps every
     * lock it ever created (decision 0025), and ZooKeeper, where a lease per row costs two replicated znodes
     * (decision 0031). Redis leases each row on its own: a key there is one in-memory command.
     */
    public static final Set<String> GROUPED_BY_DEFAULT = Set.of("hazelcast", "zookeeper");

    public LeaseGrouping {
        if (groups < 0 || groups > MAX_GROUPS) {
            throw new IllegalArgumentException(GROUPS_OPTION + " must be in [0, " + MAX_GROUPS + "] (0: a lease per row), was " + groups);
        }
        if (block < 1 || block > MAX_BLOCK) {
            throw new IllegalArgumentException(BLOCK_OPTION + " must be in [1, " + MAX_BLOCK + "], was " + block);
        }
        if (linger == null || linger.isNegative() || linger.compareTo(MAX_LINGER) > 0) {
            throw new IllegalArgumentException(LINGER_OPTION + " must be in [0, " + Durations.format(MAX_LINGER) + "], was "
                    + (linger == null ? "null" : Durations.format(linger)));
        }
        if (groups == 0) {
            block = 1;
            linger = Duration.ZERO;
        }
    }

    /**
     * What workers that exclude each other through row leases must agree on, for the table's claim-style registry:
     * empty for a lease per row, else the groups and the block (not the linger, which changes no key).
     */
    public String rowKeys() {
        return grouped() ? "rows grouped " + groups + "x" + block : "";
    }

    /** Whether rows are grouped at all. */
    public boolean grouped() {
        return groups > 0;
    }

    /** {@code manager} with rows grouped as configured, or {@code manager} itself for {@link #NONE}. */
    public LeaseManager wrap(LeaseManager manager, Clock clock) {
        return grouped() ? GroupedLeaseManager.builder(manager, this).clock(clock).open() : manager;
    }

    /**
     * The grouping a drain on {@code backend} uses given its backend options: {@link #DEFAULT} on
     * Hazelcast and ZooKeeper, {@link #NONE} elsewhere, each changed by the options that are given.
     */
    public static LeaseGrouping forBackend(String backend, Map<String, String> options) {
        boolean given = options.keySet().stream().anyMatch(OPTIONS::contains);
        if (!given && !GROUPED_BY_DEFAULT.contains(backend.toLowerCase(Locale.ROOT))) {
            return NONE;
        }
        int groups = Optional.ofNullable(options.get(GROUPS_OPTION)).map(v -> count(GROUPS_OPTION, v)).orElse(DEFAULT_GROUPS);
        int block = Optional.ofNullable(options.get(BLOCK_OPTION)).map(v -> count(BLOCK_OPTION, v)).orElse(DEFAULT_BLOCK);
        Duration linger = Optional.ofNullable(options.get(LINGER_OPTION)).map(v -> Durations.parse(LINGER_OPTION, v))
                .orElse(DEFAULT_LINGER);
        return new LeaseGrouping(block, groups, linger);
    }

    /** {@code options} without the grouping's: what the backend itself is given. */
    public static Map<String, String> backendOptions(Map<String, String> options) {
        Map<String, String> rest = new LinkedHashMap<>(options);
        rest.keySet().removeAll(OPTIONS);
        return rest;
    }

    /**
     * Opens {@code backend} by name with the grouping options taken out of {@code settings}, and groups
     * its rows as {@link #forBackend} says: how the CLI, the bench and the chaos workers open a backend.
     */
    public static LeaseManager open(String backend, LeaseBackendSettings settings, Clock clock) {
        LeaseGrouping grouping = forBackend(backend, settings.options());
        LeaseManager manager = LeaseBackends.named(backend).open(new LeaseBackendSettings(settings.address(), settings.namespace(),
                settings.leaseTtl(), backendOptions(settings.options())));
        try {
            return grouping.wrap(manager, clock);
        } catch (RuntimeException e) {
            manager.close();
            throw e;
        }
    }

    private static int count(String option, String value) {
        try {
            return Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + ": expects a whole number, was '" + value + "'");
        }
    }

    @Override
    public String toString() {
        return grouped() ? groups + " row groups of " + block + (block == 1 ? " row" : " rows") + ", lingering " + linger.toMillis() + " ms"
                : "a lease per row";
    }
}
