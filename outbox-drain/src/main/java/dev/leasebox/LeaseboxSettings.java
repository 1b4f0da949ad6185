package dev.leasebox;

import dev.leasebox.claim.ClaimMode;
import dev.leasebox.claim.Granularity;
import dev.leasebox.claim.LeaseGrouping;
import dev.leasebox.claim.ReleaseAfterCompletion;
import dev.leasebox.drain.DrainOptions;
import dev.leasebox.jdbc.TableName;
import dev.leasebox.lease.LeaseManager;
import dev.leasebox.lease.LeaseManagerException;
import dev.leasebox.lease.spi.Durations;
import dev.leasebox.lease.spi.LeaseBackend;
import dev.leasebox.lease.spi.LeaseBackendSettings;
import dev.leasebox.lease.spi.LeaseBackends;
import dev.leasebox.provider.ProviderSpec;

import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A drain's settings as text, one vocabulary for every host: the CLI's {@code --batch}, the starter's
 * {@code leasebox.batch} and the chaos worker's {@code --batch} are the key {@code batch}. Each value is
 * checked once, when it is set, and the combination when {@link Builder#build()} runs; every message starts
 * with the key as the user wrote it, which the host gives as a {@link Spelling}.
 *
 * <pre>{@code
 * LeaseboxSettings settings = LeaseboxSettings.builder(Spelling.FLAGS)
 *         .set("batch", "200").set("backend", "redis").set("redis", "redis://127.0.0.1:6379").build();
 * Optional<LeaseManager> leases = settings.openLeases(clock);           // the caller closes it
 * Leasebox drain = settings.applyTo(Leasebox.drain(dataSource), leases).provider(provider).build();
 * }</pre>
 *
 * <p>The keys ({@link #KEYS}): {@code table}, {@code batch}, {@code concurrency}, {@code lease-ttl},
 * {@code max-attempts}, {@code when-attempts-exhausted}, {@code backoff-initial}, {@code backoff-max},
 * {@code backoff-multiplier}, {@code backoff-jitter}, {@code idle-poll-min}, {@code idle-poll-max},
 * {@code shutdown-timeout}, {@code owner}, {@code backend}, the coordinator's address under the backend's name
 * ({@code zookeeper}, {@code redis}, {@code hazelcast}), {@code namespace}, {@code granularity},
 * {@code claim-mode}, {@code ordered}, {@code slots}, {@code candidate-over-ask}, {@code candidate-spread},
 * {@code release-after-completion}, {@code release-in-background}, {@code wake-ups} and {@code provider};
 * backend-specific options go through {@link Builder#backendOption}, passed to the backend as they are.
 */
public final class LeaseboxSettings {

    /** How a host spells a key to its user: {@code --batch}, {@code leasebox.batch}. */
    @FunctionalInterface
    public interface Spelling {
        /** Flags: {@code --} and the key, {@code --backend-option NAME=…}. */
        Spelling FLAGS = key -> "--" + key;

        /** {@code key} as the user writes it. */
        String key(String key);

        /** {@code key} set to {@code value}, as the user writes it: {@code --backend redis}, {@code leasebox.backend=redis}. */
        default String setting(String key, String value) {
            return key(key) + " " + value;
        }

        /** Backend option {@code name} as the user writes it. */
        default String backendOption(String name) {
            return key("backend-option") + " " + name + "=…";
        }

        /** What else gives leases when a backend's address is missing, e.g. {@code ", or a LeaseManager bean"}. */
        default String otherLeaseSource() {
            return "";
        }
    }

    /** Every key {@link Builder#set} takes, besides a backend's name for its address. */
    public static final Set<String> KEYS = Set.of("table", "batch", "concurrency", "lease-ttl", "max-attempts",
            "when-attempts-exhausted", "backoff-initial", "backoff-max", "backoff-multiplier", "backoff-jitter",
            "idle-poll-min", "idle-poll-max", "shutdown-timeout", "owner", "backend", "namespace", "granularity",
            "claim-mode", "ordered", "slots", "candidate-over-ask", "candidate-spread", "release-after-completion",
            "release-in-background", "wake-ups", "provider");

    /** {@code backend}: claims in the outbox table itself, no coordinator. */
    public static final String DATABASE = "database";
    /** The shortest {@code lease-ttl}: renewals every third of it are round trips that must fit well inside it. */
    public static final Duration MIN_LEASE_TTL = Duration.ofSeconds(1);
    /** The largest {@code candidate-over-ask}. */
    public static final int MAX_CANDIDATE_OVER_ASK = 10;

    private final Builder b;
    private final DrainOptions options;

    private LeaseboxSettings(Builder b, DrainOptions options) {
        this.b = b;
        this.options = options;
    }

    /** Settings at their defaults, spelled to the user as {@code spelling} says. */
    public static Builder builder(Spelling spelling) {
        return new Builder(spelling);
    }

    /** The outbox table. */
    public TableName table() {
        return b.table;
    }

    /** Batch, concurrency, lease duration, attempts, backoff, idle polling, shutdown timeout and owner. */
    public DrainOptions options() {
        return options;
    }

    /** The backend named by {@code backend}, if set ({@value #DATABASE} or a lease backend's name). */
    public Optional<String> backend() {
        return Optional.ofNullable(b.backend);
    }

    /** Whether leases come from a backend opened by name (not the database, and {@code backend} set). */
    public boolean opensBackend() {
        return b.backend != null && !DATABASE.equals(b.backend);
    }

    /** The coordinator's address for the chosen backend (empty unless {@link #opensBackend()}). */
    public String address() {
        return opensBackend() ? b.addresses.get(b.backend) : "";
    }

    public String namespace() {
        return b.namespace;
    }

    /** The backend options, as given. */
    public Map<String, String> backendOptions() {
        return Map.copyOf(b.backendOptions);
    }

    public Granularity granularity() {
        return b.granularity;
    }

    /** The claim mode if set; unset, the drain's default (recorded for row leases, lean for partition leases). */
    public Optional<ClaimMode> claimMode() {
        return Optional.ofNullable(b.claimMode);
    }

    public boolean wakeUps() {
        return b.wakeUps;
    }

    /** The provider if {@code provider} was set. */
    public Optional<ProviderSpec> provider() {
        return Optional.ofNullable(b.provider);
    }

    /** Which row leases are released after completion. */
    public ReleaseAfterCompletion releaseAfterCompletion() {
        return b.release;
    }

    public boolean releaseInBackground() {
        return b.releaseInBackground;
    }

    public boolean ordered() {
        return b.ordered;
    }

    /** {@code key} as the user writes it. */
    public String spelled(String key) {
        return b.spelling.key(key);
    }

    /**
     * Opens the backend named by {@code backend}, its rows grouped as its options say; empty for the database or an
     * unset backend. The manager is the caller's to close. A failure speaks in the user's keys.
     */
    public Optional<LeaseManager> openLeases(Clock clock) {
        if (!opensBackend()) {
            return Optional.empty();
        }
        LeaseBackendSettings backendSettings = new LeaseBackendSettings(address(), b.namespace, options.leaseDuration(),
                b.backendOptions);
        try {
            return Optional.of(LeaseGrouping.open(b.backend, backendSettings, clock));
        } catch (LeaseManagerException e) {
            throw new LeaseManagerException(inUserTerms(e.getMessage()), e);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(inUserTerms(e.getMessage()), e);
        }
    }

    /** Sets everything but the leases on {@code builder}: table, options, granularity, claim path and wake-ups. */
    public Leasebox.Builder applyTo(Leasebox.Builder builder) {
        builder.table(b.table).options(options).granularity(b.granularity).wakeUps(b.wakeUps);
        if (b.claimMode != null) {
            builder.claimMode(b.claimMode);
        }
        if (b.granularity == Granularity.PARTITION) {
            builder.ordered(b.ordered);
            if (b.slots != null) {
                builder.expectSlots(b.slots);
            }
        } else {
            builder.releaseAfterCompletion(b.release).releaseInBackground(b.releaseInBackground)
                    .candidateWindow(b.candidateOverAsk, b.candidateSpread);
        }
        return builder;
    }

    /**
     * As {@link #applyTo(Leasebox.Builder)}, leasing from {@code leases} when present. A backend opened by name
     * ({@link #openLeases}) also names the coordinator for the claim-style registry and groups rows as its options say.
     */
    public Leasebox.Builder applyTo(Leasebox.Builder builder, Optional<? extends LeaseManager> leases) {
        applyTo(builder);
        if (leases.isPresent()) {
            builder.leases(leases.get());
            if (opensBackend()) {
                builder.coordinator(b.backend, address(), b.namespace);
                if (b.granularity == Granularity.ROW) {
                    builder.rowGrouping(LeaseGrouping.forBackend(b.backend, b.backendOptions));
                }
            }
        }
        return builder;
    }

    private static final Pattern BACKEND_KEY = Pattern.compile("leasebox\\.([a-z]+)\\.([A-Za-z-]+)");
    private static final Pattern ISO_DURATION = Pattern.compile("\\bPT[0-9HMS.]+\\b");

    /**
     * A backend's message in the user's keys: the backend's configuration keys ({@code leasebox.zookeeper.connect-string})
     * become the settings that set them ({@code --zookeeper}, {@code --backend-option session-timeout=…}), ISO-8601
     * durations become {@code 10s}. The key of the address is the one the backend declares
     * ({@link LeaseBackend#addressKey()}).
     */
    public String inUserTerms(String message) {
        if (message == null) {
            return null;
        }
        Map<String, LeaseBackend> available = LeaseBackends.available();
        Matcher key = BACKEND_KEY.matcher(message);
        StringBuilder text = new StringBuilder();
        while (key.find()) {
            key.appendReplacement(text, Matcher.quoteReplacement(userKey(key, available)));
        }
        key.appendTail(text);
        Matcher duration = ISO_DURATION.matcher(text.toString());
        StringBuilder result = new StringBuilder();
        while (duration.find()) {
            String written;
            try {
                written = Durations.format(Duration.parse(duration.group()));
            } catch (java.time.format.DateTimeParseException notADuration) {
                written = duration.group();
            }
            duration.appendReplacement(result, Matcher.quoteReplacement(written));
        }
        duration.appendTail(result);
        return result.toString();
    }

    /** The backend's key {@code key} found, as the user writes it; a key of no backend as it is. */
    private String userKey(Matcher key, Map<String, LeaseBackend> available) {
        String backend = key.group(1);
        LeaseBackend found = available.get(backend);
        if (found == null && !LeaseBackends.KNOWN.containsKey(backend)) {
            return key.group();
        }
        if ("namespace".equals(key.group(2))) {
            return b.spelling.key("namespace");
        }
        return found != null && found.addressKey().equals(key.group(2)) ? b.spelling.key(backend)
                : b.spelling.backendOption(key.group(2));
    }

    /** E.g. {@code row leases} or {@code partition leases, lean claims, ordered per key}. */
    public String describe() {
        if (b.granularity == Granularity.PARTITION) {
            ClaimMode mode = b.claimMode == null ? ClaimMode.LEAN : b.claimMode;
            return "partition leases, " + mode.name().toLowerCase(java.util.Locale.ROOT) + " claims"
                    + (b.ordered ? ", ordered per key" : "");
        }
        return "row leases" + (b.claimMode == ClaimMode.LEAN ? ", lean claims" : "");
    }

    /** Collects settings by key; {@link #build()} checks them together. */
    public static final class Builder extends SettingsBuilder {
        private Builder(Spelling spelling) {
            super(spelling);
        }

        private Builder(Builder from) {
            super(from);
        }

        @Override
        public Builder set(String key, String value) {
            super.set(key, value);
            return this;
        }

        @Override
        public Builder backendOption(String name, String value) {
            super.backendOption(name, value);
            return this;
        }

        /** The settings, their combination checked; an IllegalArgumentException names the keys to change. */
        public LeaseboxSettings build() {
            DrainOptions options = checkedOptions();
            return new LeaseboxSettings(new Builder(this), options); // a snapshot: later set(...) calls change nothing

        }
    }
}
