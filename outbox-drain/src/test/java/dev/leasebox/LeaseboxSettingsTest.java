package dev.leasebox;

import dev.leasebox.LeaseboxSettings.Spelling;
import dev.leasebox.claim.ClaimMode;
import dev.leasebox.claim.Granularity;
import dev.leasebox.claim.ReleaseAfterCompletion;
import dev.leasebox.drain.DrainOptions;
import dev.leasebox.jdbc.TableName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

import java.time.Clock;
import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Every key read from text, every bad value refused in the words of the host that bound it. */
class LeaseboxSettingsTest {

    private AutoCloseable memoryBackend;

    @BeforeEach
    void registerTheMemoryBackend() {
        memoryBackend = MemoryLeaseBackend.onClassPath();
    }

    @AfterEach
    void unregisterTheMemoryBackend() throws Exception {
        memoryBackend.close();
    }

    /** As the starter spells its properties (its own spelling groups the backoff and the addresses). */
    private static final Spelling PROPERTIES = new Spelling() {
        @Override
        public String key(String key) {
            return "leasebox." + key;
        }

        @Override
        public String setting(String key, String value) {
            return key(key) + "=" + value;
        }
    };

    private static LeaseboxSettings.Builder flags() {
        return LeaseboxSettings.builder(Spelling.FLAGS);
    }

    @Test
    void groupingOptionsAreCheckedWhenTheSettingsAreBuilt() {
        assertThatThrownBy(() -> flags().set("backend", "memory").set("memory", "here").backendOption("row-groups", "-1").build())
                .hasMessageStartingWith("--backend-option row-groups must be in [0, ");
        assertThatThrownBy(() -> LeaseboxSettings.builder(PROPERTIES).backendOption("row-groups", "0").build())
                .hasMessageContaining("backend options apply to a backend opened by name");
    }

    @Test
    void builtSettingsKeepTheirValuesWhenTheBuilderChangesLater() {
        LeaseboxSettings.Builder builder = flags().set("backend", "memory").set("memory", "here")
                .set("granularity", "row").backendOption("row-groups", "0");
        LeaseboxSettings built = builder.build();
        builder.set("backend", "database").set("granularity", "partition").set("wake-ups", "false")
                .backendOption("row-group-block", "8");
        assertThat(built.backend()).contains("memory");
        assertThat(built.address()).isEqualTo("here");
        assertThat(built.granularity()).isEqualTo(Granularity.ROW);
        assertThat(built.wakeUps()).isTrue();
        assertThat(built.backendOptions()).isEqualTo(Map.of("row-groups", "0"));
    }

    @Test
    void defaultsAreTheDrainsDefaults() {
        LeaseboxSettings s = flags().build();
        DrainOptions defaults = DrainOptions.defaults();
        assertThat(s.table()).isEqualTo(TableName.DEFAULT);
        assertThat(s.options()).usingRecursiveComparison().ignoringFields("owner").isEqualTo(defaults);
        assertThat(s.backend()).isEmpty();
        assertThat(s.opensBackend()).isFalse();
        assertThat(s.namespace()).isEqualTo("leasebox");
        assertThat(s.granularity()).isEqualTo(Granularity.ROW);
        assertThat(s.claimMode()).isEmpty();
        assertThat(s.wakeUps()).isTrue();
        assertThat(s.provider()).isEmpty();
        assertThat(s.openLeases(Clock.systemUTC())).isEmpty();
    }

    @Test
    void everyDrainKeyIsRead() {
        LeaseboxSettings s = flags().set("table", "app.outbox").set("batch", "250").set("concurrency", "3")
                .set("lease-ttl", "1m30s").set("max-attempts", "7").set("when-attempts-exhausted", "keep-retrying")
                .set("backoff-initial", "2s").set("backoff-max", "PT1M").set("backoff-multiplier", "3")
                .set("backoff-jitter", "0.5").set("idle-poll-min", "20ms").set("idle-poll-max", "2s")
                .set("shutdown-timeout", "0s").set("owner", " w1 ").set("wake-ups", "false").set("provider", "noop").build();
        DrainOptions o = s.options();
        assertThat(s.table()).isEqualTo(TableName.parse("app.outbox"));
        assertThat(o.batchSize()).isEqualTo(250);
        assertThat(o.concurrency()).isEqualTo(3);
        assertThat(o.leaseDuration()).isEqualTo(Duration.ofSeconds(90));
        assertThat(o.maxAttempts()).isEqualTo(7);
        assertThat(o.whenAttemptsExhausted()).isEqualTo(DrainOptions.AttemptsExhausted.KEEP_RETRYING);
        assertThat(o.initialBackoff()).isEqualTo(Duration.ofSeconds(2));
        assertThat(o.maxBackoff()).isEqualTo(Duration.ofMinutes(1));
        assertThat(o.backoffMultiplier()).isEqualTo(3.0);
        assertThat(o.backoffJitter()).isEqualTo(0.5);
        assertThat(o.idlePollMin()).isEqualTo(Duration.ofMillis(20));
        assertThat(o.idlePollMax()).isEqualTo(Duration.ofSeconds(2));
        assertThat(o.shutdownTimeout()).isZero();
        assertThat(o.owner()).isEqualTo("w1");
        assertThat(s.wakeUps()).isFalse();
        assertThat(s.provider().orElseThrow().kind()).isEqualTo("noop");
    }

    @Test
    void everyClaimPathKeyIsRead() {
        LeaseboxSettings partition = flags().set("granularity", "PARTITION").set("claim-mode", "recorded")
                .set("ordered", "true").set("slots", "64").build();
        assertThat(partition.granularity()).isEqualTo(Granularity.PARTITION);
        assertThat(partition.claimMode()).contains(ClaimMode.RECORDED);
        assertThat(partition.ordered()).isTrue();
        assertThat(partition.describe()).isEqualTo("partition leases, recorded claims, ordered per key");
        LeaseboxSettings rows = flags().set("backend", "Memory").set("memory", "here").set("namespace", "orders")
                .set("claim-mode", "lean").set("release-after-completion", "non-terminal").set("release-in-background", "true")
                .set("candidate-over-ask", "3").set("candidate-spread", "100").backendOption("row-groups", "0").build();
        assertThat(rows.backend()).contains("memory");
        assertThat(rows.opensBackend()).isTrue();
        assertThat(rows.address()).isEqualTo("here");
        assertThat(rows.namespace()).isEqualTo("orders");
        assertThat(rows.backendOptions()).isEqualTo(Map.of("row-groups", "0"));
        assertThat(rows.releaseAfterCompletion()).isEqualTo(ReleaseAfterCompletion.NON_TERMINAL);
        assertThat(rows.releaseInBackground()).isTrue();
        assertThat(rows.describe()).isEqualTo("row leases, lean claims");
    }

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
            "batch|0|must be in 1..10000, was 0",
            "batch|ten|must be a whole number, was 'ten'",
            "concurrency|257|must be in 1..256, was 257",
            "lease-ttl|500ms|must be at least 1s (it is renewed every third of it, a round trip each time), was 500ms",
            "lease-ttl|soon|: 'soon' is not a duration: write e.g. 500ms, 30s, 2m, 1m30s, 1h, 7d or PT30S",
            "max-attempts|0|must be at least 1, was 0",
            "when-attempts-exhausted|never|: choose dead-letter or keep-retrying, was 'never'",
            "backoff-initial|0s|must be at least 1ms, was 0s",
            "backoff-max|0ms|must be at least 1ms, was 0s",
            "backoff-multiplier|0.5|must be between 1 and 100, was 0.5",
            "backoff-multiplier|fast|must be a number, was 'fast'",
            "backoff-jitter|1.5|must be between 0 and 1 (a fraction of each delay), was 1.5",
            "idle-poll-min|0s|must be at least 1ms, was 0s",
            "idle-poll-max|x|: 'x' is not a duration: write e.g. 500ms, 30s, 2m, 1m30s, 1h, 7d or PT30S",
            "shutdown-timeout|-1s|: '-1s' is not a duration: write e.g. 500ms, 30s, 2m, 1m30s, 1h, 7d or PT30S",
            "owner|\"  \"|must not be blank when set",
            "namespace|a b|must be 1-64 characters of A-Z a-z 0-9 _ . - { }, was 'a b'",
            "granularity|slot|: choose row or partition, was 'slot'",
            "claim-mode|fast|: choose recorded or lean, was 'fast'",
            "ordered|yes|must be true or false, was 'yes'",
            "slots|0|must be in 1..65536, was 0",
            "candidate-over-ask|11|must be in 1..10, was 11",
            "candidate-spread|500|must be in 1..100, was 500",
            "release-after-completion|never|: choose always or non-terminal, was 'never'",
            "release-in-background|on|must be true or false, was 'on'",
            "wake-ups|maybe|must be true or false, was 'maybe'",
    })
    void aBadValueIsRefusedNamingTheKeyAsEachHostSpellsIt(String key, String value, String why) {
        assertThatThrownBy(() -> flags().set(key, value)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--" + key + (why.startsWith(":") ? "" : " ") + why);
        assertThatThrownBy(() -> LeaseboxSettings.builder(PROPERTIES).set(key, value))
                .hasMessage("leasebox." + key + (why.startsWith(":") ? "" : " ") + why);
    }

    @Test
    void aBadTableOrProviderIsRefusedWithTheValueAsWritten() {
        assertThatThrownBy(() -> flags().set("table", "bad-name")).hasMessageStartingWith("--table bad-name is not a table name: ");
        assertThatThrownBy(() -> LeaseboxSettings.builder(PROPERTIES).set("table", "bad-name"))
                .hasMessageStartingWith("leasebox.table=bad-name is not a table name: ");
        assertThatThrownBy(() -> flags().set("provider", "pigeon")).hasMessageStartingWith("--provider pigeon names no provider "
                + "on the class path: use ").hasMessageContaining("jdbc-inbox:JDBC_URL");
        assertThatThrownBy(() -> LeaseboxSettings.builder(PROPERTIES).set("provider", "http"))
                .hasMessage("leasebox.provider=http needs a target: http:URL");
        assertThatThrownBy(() -> flags().set("nonsense", "1")).hasMessageContaining("unknown setting 'nonsense'");
    }

    @Test
    void anUnsetValueLeavesTheDefault() {
        assertThat(flags().set("batch", null).build().options().batchSize()).isEqualTo(100);
    }

    @Test
    void combinationsAreRefusedNamingEveryKeyInvolved() {
        assertThatThrownBy(() -> flags().set("backoff-initial", "1m").set("backoff-max", "30s").build())
                .hasMessage("--backoff-max 30s is below --backoff-initial 1m: make it at least the initial delay");
        assertThatThrownBy(() -> LeaseboxSettings.builder(PROPERTIES).set("backoff-initial", "1m").set("backoff-max", "30s").build())
                .hasMessage("leasebox.backoff-max=30s is below leasebox.backoff-initial=1m: make it at least the initial delay");
        assertThatThrownBy(() -> flags().set("idle-poll-min", "2s").set("idle-poll-max", "1s").build())
                .hasMessage("--idle-poll-max 1s is below --idle-poll-min 2s");
        assertThatThrownBy(() -> flags().set("ordered", "true").build())
                .hasMessageStartingWith("--ordered needs --granularity partition");
        assertThatThrownBy(() -> flags().set("slots", "8").build()).hasMessageStartingWith("--slots needs --granularity partition");
        assertThatThrownBy(() -> flags().set("granularity", "partition").set("release-in-background", "true").build())
                .hasMessageStartingWith("--release-after-completion and --release-in-background are for row leases");
        assertThatThrownBy(() -> LeaseboxSettings.builder(PROPERTIES).set("backend", "database").set("claim-mode", "lean").build())
                .hasMessage("leasebox.claim-mode=lean needs leases from a coordinator (leasebox.backend=redis|zookeeper|hazelcast) "
                        + "or leasebox.granularity=partition: the database backend claims in the row itself");
        assertThatThrownBy(() -> flags().set("backend", "database").set("release-after-completion", "non-terminal").build())
                .hasMessageStartingWith("--release-after-completion and --release-in-background apply to external lease backends only");
        assertThatThrownBy(() -> flags().set("backend", "database").backendOption("session-timeout", "10s").build())
                .hasMessage("--backend-option session-timeout: --backend database takes no backend options; drop them or choose an "
                        + "external backend");
        assertThat(flags().set("backend", "database").set("granularity", "partition").set("claim-mode", "lean").build()
                .claimMode()).as("partition leases claim lean in the table").contains(ClaimMode.LEAN);
    }

    @Test
    void aBackendNeedsItsAddressAndItsModule() {
        assertThatThrownBy(() -> flags().set("backend", "etcd").build())
                .hasMessage("unknown --backend 'etcd': choose database, zookeeper, redis, hazelcast or memory");
        assertThatThrownBy(() -> flags().set("backend", "memory").build()).hasMessage("--backend memory needs --memory (NAME)");
        assertThatThrownBy(() -> flags().set("backend", "redis").build()).hasMessage("--backend redis needs --redis URI");
        assertThatThrownBy(() -> LeaseboxSettings.builder(PROPERTIES).set("backend", "zookeeper").build())
                .hasMessage("leasebox.backend=zookeeper needs leasebox.zookeeper CONNECT");
        assertThatThrownBy(() -> flags().set("backend", "hazelcast").set("hazelcast", "127.0.0.1:5701").build())
                .hasMessageStartingWith("--backend hazelcast: lease backend 'hazelcast' is not on the class path: add the module "
                        + "lease-hazelcast");
    }

    @Test
    void aBackendsMessageSpeaksInTheUsersKeys() throws Exception {
        LeaseboxSettings flags = flags().build();
        try (AutoCloseable memory = MemoryLeaseBackend.onClassPath()) {
            assertThat(flags.inUserTerms("nothing at 127.0.0.1:1 within PT10S: check leasebox.memory.name and that it runs"))
                    .as("the address under the key the backend declares").isEqualTo("nothing at 127.0.0.1:1 within 10s: "
                            + "check --memory and that it runs");
        }
        assertThat(flags.inUserTerms("see leasebox.jdbc.table")).as("no backend's key").isEqualTo("see leasebox.jdbc.table");
        assertThat(flags.inUserTerms("no access to /leasebox (check leasebox.zookeeper.digest and the ACLs)"))
                .isEqualTo("no access to /leasebox (check --backend-option digest=… and the ACLs)");
        assertThat(flags.inUserTerms("session of PT1M30S")).isEqualTo("session of 1m30s");
        assertThat(LeaseboxSettings.builder(PROPERTIES).build().inUserTerms("check leasebox.redis.namespace"))
                .isEqualTo("check leasebox.namespace");
    }
}
