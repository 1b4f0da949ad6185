package dev.leasebox;

import dev.leasebox.LeaseboxSettings.Spelling;
import dev.leasebox.claim.ClaimMode;
import dev.leasebox.claim.Granularity;
import dev.leasebox.claim.LeaseGrouping;
import dev.leasebox.claim.ReleaseAfterCompletion;
import dev.leasebox.drain.Backoff;
import dev.leasebox.drain.DrainConfigurationException;
import dev.leasebox.drain.DrainOptions;
import dev.leasebox.jdbc.LeaseboxSchema;
import dev.leasebox.jdbc.TableName;
import dev.leasebox.jdbc.store.JdbcOutboxStore;
import dev.leasebox.lease.spi.Durations;
import dev.leasebox.lease.spi.LeaseBackends;
import dev.leasebox.outbox.ClaimRequest;
import dev.leasebox.provider.ProviderSpec;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

import static dev.leasebox.SettingText.bool;
import static dev.leasebox.SettingText.choice;
import static dev.leasebox.SettingText.duration;
import static dev.leasebox.SettingText.fraction;
import static dev.leasebox.SettingText.text;
import static dev.leasebox.SettingText.whole;

/** The values of {@link LeaseboxSettings.Builder}, each read from text and checked as it is set. */
abstract class SettingsBuilder {

    private static final String NO_REASON = "";

    final Spelling spelling;
    TableName table = TableName.DEFAULT;
    int batch = 100;
    int concurrency = 1;
    Duration leaseTtl = Duration.ofSeconds(30);
    int maxAttempts = 10;
    DrainOptions.AttemptsExhausted attemptsExhausted = DrainOptions.AttemptsExhausted.DEAD_LETTER;
    Duration backoffInitial = Duration.ofSeconds(1);
    Duration backoffMax = Duration.ofMinutes(5);
    double backoffMultiplier = 2;
    double backoffJitter = 1.0;
    Duration idlePollMin = Duration.ofMillis(100);
    Duration idlePollMax = Duration.ofSeconds(5);
    Duration shutdownTimeout = Duration.ofSeconds(30);
    String owner;
    String backend;
    final Map<String, String> addresses = new LinkedHashMap<>();
    String namespace = "leasebox";
    final Map<String, String> backendOptions = new LinkedHashMap<>();
    Granularity granularity = Granularity.ROW;
    ClaimMode claimMode;
    boolean ordered;
    Integer slots;
    int candidateOverAsk = 2;
    int candidateSpread = 4;
    ReleaseAfterCompletion release = ReleaseAfterCompletion.ALWAYS;
    boolean releaseInBackground;
    boolean wakeUps = true;
    ProviderSpec provider;

    SettingsBuilder(Spelling spelling) {
        this.spelling = Objects.requireNonNull(spelling, "spelling");
    }

    /** A copy of {@code from}'s values, which later changes to {@code from} leave alone. */
    SettingsBuilder(SettingsBuilder from) {
        this.spelling = from.spelling;
        this.table = from.table;
        this.batch = from.batch;
        this.concurrency = from.concurrency;
        this.leaseTtl = from.leaseTtl;
        this.maxAttempts = from.maxAttempts;
        this.attemptsExhausted = from.attemptsExhausted;
        this.backoffInitial = from.backoffInitial;
        this.backoffMax = from.backoffMax;
        this.backoffMultiplier = from.backoffMultiplier;
        this.backoffJitter = from.backoffJitter;
        this.idlePollMin = from.idlePollMin;
        this.idlePollMax = from.idlePollMax;
        this.shutdownTimeout = from.shutdownTimeout;
        this.owner = from.owner;
        this.backend = from.backend;
        this.namespace = from.namespace;
        this.granularity = from.granularity;
        this.claimMode = from.claimMode;
        this.ordered = from.ordered;
        this.slots = from.slots;
        this.candidateOverAsk = from.candidateOverAsk;
        this.candidateSpread = from.candidateSpread;
        this.release = from.release;
        this.releaseInBackground = from.releaseInBackground;
        this.wakeUps = from.wakeUps;
        this.provider = from.provider;
        this.addresses.putAll(from.addresses);
        this.backendOptions.putAll(from.backendOptions);
    }

    /**
     * Sets {@code key} from {@code value} as the user wrote it; {@code null} leaves the default. A bad value fails
     * here, in one line starting with the key as the user spells it.
     */
    SettingsBuilder set(String key, String value) {
        if (value == null) {
            return this;
        }
        String k = spelling.key(key);
        switch (key) {
            case "table" -> table = table(spelling.setting("table", value), value);
            case "batch" -> batch = whole(k, value, 1, ClaimRequest.MAX_BATCH_SIZE);
            case "concurrency" -> concurrency = whole(k, value, 1, DrainOptions.MAX_CONCURRENCY);
            case "lease-ttl" -> leaseTtl = duration(k, value, LeaseboxSettings.MIN_LEASE_TTL,
                    " (it is renewed every third of it, a round trip each time)");
            case "max-attempts" -> maxAttempts = whole(k, value, 1, Integer.MAX_VALUE);
            case "when-attempts-exhausted" -> attemptsExhausted = choice(k, value, "dead-letter or keep-retrying",
                    v -> DrainOptions.AttemptsExhausted.valueOf(enumName(v)));
            case "backoff-initial" -> backoffInitial = duration(k, value, Duration.ofMillis(1), NO_REASON);
            case "backoff-max" -> backoffMax = duration(k, value, Duration.ofMillis(1), NO_REASON);
            case "backoff-multiplier" -> backoffMultiplier = fraction(k, value, 1, Backoff.MAX_MULTIPLIER, "");
            case "backoff-jitter" -> backoffJitter = fraction(k, value, 0, 1, " (a fraction of each delay)");
            case "idle-poll-min" -> idlePollMin = duration(k, value, Duration.ofMillis(1), NO_REASON);
            case "idle-poll-max" -> idlePollMax = duration(k, value, Duration.ofMillis(1), NO_REASON);
            case "shutdown-timeout" -> shutdownTimeout = duration(k, value, Duration.ZERO, NO_REASON);
            case "owner" -> owner = text(k, value);
            case "backend" -> backend = text(k, value).toLowerCase(Locale.ROOT);
            case "namespace" -> namespace = namespace(k, value);
            case "granularity" -> granularity = choice(k, value, "row or partition",
                    v -> Granularity.valueOf(enumName(v)));
            case "claim-mode" -> claimMode = choice(k, value, "recorded or lean", ClaimMode::parse);
            case "ordered" -> ordered = bool(k, value);
            case "slots" -> slots = whole(k, value, 1, LeaseboxSchema.MAX_SLOT_COUNT);
            case "candidate-over-ask" -> candidateOverAsk = whole(k, value, 1, LeaseboxSettings.MAX_CANDIDATE_OVER_ASK);
            case "candidate-spread" -> candidateSpread = whole(k, value, 1, JdbcOutboxStore.MAX_CANDIDATE_SPREAD);
            case "release-after-completion" -> release = choice(k, value, "always or non-terminal", ReleaseAfterCompletion::parse);
            case "release-in-background" -> releaseInBackground = bool(k, value);
            case "wake-ups" -> wakeUps = bool(k, value);
            case "provider" -> provider = ProviderSpec.parse(text(k, value), shown -> spelling.setting("provider", shown));
            default -> {
                if (!LeaseBackends.KNOWN.containsKey(key) && !LeaseBackends.available().containsKey(key)) {
                    throw new IllegalArgumentException("unknown setting '" + key + "': use one of " + LeaseboxSettings.KEYS
                            + " or a lease backend's name for its address");
                }
                addresses.put(key, text(k, value));
            }
        }
        return this;
    }

    /** A backend-specific option, passed to the backend as it is (repeatable). */
    SettingsBuilder backendOption(String name, String value) {
        backendOptions.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(value, "value"));
        return this;
    }

    /** Checks the settings together; the drain options they make. */
    DrainOptions checkedOptions() {
        if (backoffMax.compareTo(backoffInitial) < 0) {
            throw new IllegalArgumentException(spelling.setting("backoff-max", Durations.format(backoffMax))
                    + " is below " + spelling.setting("backoff-initial", Durations.format(backoffInitial))
                    + ": make it at least the initial delay");
        }
        if (idlePollMax.compareTo(idlePollMin) < 0) {
            throw new IllegalArgumentException(spelling.setting("idle-poll-max", Durations.format(idlePollMax))
                    + " is below " + spelling.setting("idle-poll-min", Durations.format(idlePollMin)));
        }
        checkBackend();
        checkClaimPath();
        try {
            DrainOptions.Builder options = DrainOptions.builder().batchSize(batch).concurrency(concurrency)
                    .leaseDuration(leaseTtl).maxAttempts(maxAttempts).whenAttemptsExhausted(attemptsExhausted)
                    .backoff(backoffInitial, backoffMultiplier, backoffMax, backoffJitter)
                    .idlePolling(idlePollMin, idlePollMax).shutdownTimeout(shutdownTimeout);
            if (owner != null) {
                options.owner(owner);
            }
            return options.build();
        } catch (DrainConfigurationException e) {
            throw new IllegalArgumentException("the drain's settings do not fit together: " + e.getMessage(), e);
        }
    }

    private void checkBackend() {
        if (backend == null) {
            if (!backendOptions.isEmpty()) {
                throw new IllegalArgumentException(spelling.key("backend-option") + " " + String.join(", ", backendOptions.keySet())
                        + ": backend options apply to a backend opened by name (" + spelling.key("backend")
                        + "); drop them, or set them on the lease manager you pass in");
            }
            return;
        }
        String key = spelling.key("backend");
        if (LeaseboxSettings.DATABASE.equals(backend)) {
            if (!backendOptions.isEmpty()) {
                throw new IllegalArgumentException(spelling.key("backend-option") + " " + String.join(", ", backendOptions.keySet())
                        + ": " + spelling.setting("backend", "database") + " takes no backend options; drop them or choose an external backend");
            }
            return;
        }
        if (!LeaseBackends.KNOWN.containsKey(backend) && !LeaseBackends.available().containsKey(backend)) {
            throw new IllegalArgumentException("unknown " + key + " '" + backend + "': choose " + backendNames());
        }
        String address = addresses.get(backend);
        if (address == null) {
            throw new IllegalArgumentException(spelling.setting("backend", backend) + " needs " + spelling.key(backend) + " "
                    + addressForm(backend) + spelling.otherLeaseSource());
        }
        try {
            LeaseBackends.named(backend);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(spelling.setting("backend", backend) + ": " + e.getMessage(), e);
        }
        try {
            LeaseGrouping.forBackend(backend, backendOptions); // the grouping options, checked before anything opens
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(spelling.key("backend-option") + " " + e.getMessage(), e);
        }
    }

    private void checkClaimPath() {
        boolean partition = granularity == Granularity.PARTITION;
        boolean defaultRelease = release == ReleaseAfterCompletion.ALWAYS && !releaseInBackground;
        if (partition && !defaultRelease) {
            throw new IllegalArgumentException(spelling.key("release-after-completion") + " and "
                    + spelling.key("release-in-background") + " are for row leases; partition leases keep their slots "
                    + "until the worker stops");
        }
        if (!partition && (ordered || slots != null)) {
            throw new IllegalArgumentException(spelling.key(ordered ? "ordered" : "slots") + " needs "
                    + spelling.setting("granularity", "partition") + ": per-key order and slots are properties of partition leases");
        }
        if (partition || !LeaseboxSettings.DATABASE.equals(backend)) {
            return;
        }
        String coordinators = spelling.setting("backend", "redis|zookeeper|hazelcast");
        if (claimMode == ClaimMode.LEAN) {
            throw new IllegalArgumentException(spelling.setting("claim-mode", "lean") + " needs leases from a coordinator ("
                    + coordinators + ") or " + spelling.setting("granularity", "partition")
                    + ": the database backend claims in the row itself");
        }
        if (!defaultRelease) {
            throw new IllegalArgumentException(spelling.key("release-after-completion") + " and "
                    + spelling.key("release-in-background") + " apply to external lease backends only: the database "
                    + "backend claims in the row itself. Drop them, or choose " + coordinators);
        }
    }

    private static String backendNames() {
        List<String> names = new ArrayList<>(List.of(LeaseboxSettings.DATABASE, "zookeeper", "redis", "hazelcast"));
        LeaseBackends.available().keySet().stream().filter(n -> !names.contains(n)).forEach(names::add);
        return String.join(", ", names.subList(0, names.size() - 1)) + " or " + names.get(names.size() - 1);
    }

    private static String addressForm(String backend) {
        var found = LeaseBackends.available().get(backend);
        if (found != null) {
            return "(" + found.addressFormat() + ")";
        }
        return switch (backend) {
            case "redis" -> "URI";
            case "zookeeper" -> "CONNECT";
            default -> "ADDRESSES";
        };
    }

    private static TableName table(String key, String value) {
        try {
            return TableName.parse(value.trim());
        } catch (IllegalArgumentException e) {
            String why = e.getMessage().replace(" (property table)", "");
            throw new IllegalArgumentException(key + " is not a table name: " + why.substring(why.indexOf(": ") + 2));
        }
    }

    private static String namespace(String key, String value) {
        if (!value.matches("[A-Za-z0-9_.{}-]{1,64}")) {
            throw new IllegalArgumentException(key + " must be 1-64 characters of A-Z a-z 0-9 _ . - { }, was '" + value + "'");
        }
        return value;
    }

    private static String enumName(String text) {
        return text.toUpperCase(Locale.ROOT).replace('-', '_');
    }
}
