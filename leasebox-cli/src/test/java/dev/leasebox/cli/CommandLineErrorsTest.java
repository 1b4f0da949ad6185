package dev.leasebox.cli;

import org.junit.jupiter.api.Test;

import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Bad input gives one clear line on stderr and exit code 2; a stack trace only with --verbose. */
class CommandLineErrorsTest {

    private static final String H2 = "jdbc:h2:mem:cli-errors;DB_CLOSE_DELAY=-1";

    @Test
    void anUnknownBackendIsNamedWithTheChoices() {
        CliRun run = CliRun.of("worker", "--jdbc-url", H2, "--backend", "etcd");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("unknown --backend 'etcd'").contains("database, zookeeper, redis or hazelcast");
        assertThat(run.err()).doesNotContain("\tat ");
    }

    @Test
    void aBackendWithoutItsAddressSaysWhichOptionToGive() {
        CliRun run = CliRun.of("worker", "--jdbc-url", H2, "--backend", "redis");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("--backend redis needs --redis (");
        assertThat(run.err()).as("bad input has no stack trace worth offering").doesNotContain("--verbose");
        assertThat(run.errLines()).isEqualTo(1);
    }

    @Test
    void aCandidateSpreadBeyondWhatTheStoreReadsIsRefusedNamingTheFlag() {
        CliRun run = CliRun.of("worker", "--jdbc-url", H2, "--backend", "redis", "--redis", "redis://127.0.0.1:1",
                "--candidate-spread", "500");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("--candidate-spread must be in 1..100, was 500").doesNotContain("candidateSpread");
    }

    @Test
    void theBackendDefaultsToTheDatabaseSoAMistypedOptionIsNamed() {
        CliRun run = CliRun.of("worker", "--jdbc-url", H2, "--btach", "5");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("--btach").doesNotContain("Missing required option");
    }

    @Test
    void anUnknownClaimModeOrReleasePolicyNamesTheChoices() {
        CliRun mode = CliRun.of("worker", "--jdbc-url", H2, "--backend", "database", "--claim-mode", "fast");
        assertThat(mode.exitCode()).isEqualTo(2);
        assertThat(mode.err()).contains("--claim-mode: choose recorded or lean, was 'fast'");
        CliRun release = CliRun.of("worker", "--jdbc-url", H2, "--backend", "database", "--release-after-completion", "never");
        assertThat(release.exitCode()).isEqualTo(2);
        assertThat(release.err()).contains("--release-after-completion: choose always or non-terminal, was 'never'");
    }

    @Test
    void theDatabaseBackendRefusesTheLeanClaimModeSayingWhy() {
        CliRun run = CliRun.of("worker", "--jdbc-url", H2, "--backend", "database", "--claim-mode", "lean");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("--claim-mode lean needs leases from a coordinator (--backend redis|zookeeper|hazelcast) "
                + "or --granularity partition").contains("claims in the row itself");
    }

    @Test
    void theDatabaseBackendRefusesABackgroundReleaseSayingWhy() {
        CliRun run = CliRun.of("worker", "--jdbc-url", H2, "--backend", "database", "--release-in-background");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("--release-in-background").contains("apply to external lease backends only");
        assertThat(run.errLines()).as("the reason alone").isEqualTo(1);
    }

    @Test
    void aBadDurationSaysHowToWriteOne() {
        CliRun run = CliRun.of("worker", "--jdbc-url", H2, "--backend", "database", "--lease-ttl", "soon");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("'soon' is not a duration: write e.g. 500ms, 30s, 2m, 1m30s, 1h, 7d or PT30S");
    }

    @Test
    void anUnreachableDatabaseNamesTheUrlTriedWithoutItsPassword() {
        CliRun run = CliRun.of("status", "--jdbc-url",
                "jdbc:postgresql://127.0.0.1:1/test?user=app&password=secret&connectTimeout=1");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("127.0.0.1:1").doesNotContain("secret").contains("--verbose");
        assertThat(run.errLines()).isEqualTo(2);
    }

    @Test
    void aMissingOutboxTableNamesTheMigrationScript() {
        CliRun run = CliRun.of("worker", "--jdbc-url", "jdbc:h2:mem:cli-missing;DB_CLOSE_DELAY=-1", "--backend", "database",
                "--exit-when-idle");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("does not exist").contains("apply the scripts of db/leasebox/h2/ in order (V1 to V")
                .contains("leasebox schema --apply");
    }

    @Test
    void verbosePrintsTheStackTrace() {
        CliRun run = CliRun.of("status", "--verbose", "--jdbc-url", "jdbc:h2:mem:cli-verbose;DB_CLOSE_DELAY=-1");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("\tat ");
    }

    @Test
    void anUnknownOptionIsAUsageErrorWithExitCodeTwo() {
        CliRun run = CliRun.of("enqueue", "--jdbc-url", H2, "--count", "1", "--frobnicate");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("Unknown option: '--frobnicate'").contains("leasebox enqueue --help");
    }

    @Test
    void aMistypedOptionIsNamedBeforeARequiredOneItsTypoLeftOut() {
        CliRun run = CliRun.of("worker", "--btach", "5");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("Unknown options: '--btach', '5'").contains("leasebox worker --help")
                .doesNotContain("Missing required option");
    }

    @Test
    void anUnknownProviderListsTheFormats() {
        CliRun run = CliRun.of("worker", "--jdbc-url", H2, "--backend", "database", "--provider", "nosuch:x");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("--provider").contains("--provider nosuch:x names no provider on the class path").contains("jdbc-inbox:JDBC_URL")
                .contains("kafka:BOOTSTRAP/TOPIC");
    }

    @Test
    void aMalformedKafkaTargetIsAUsageErrorNamingTheFlagAndTheForm() {
        CliRun run = CliRun.of("worker", "--jdbc-url", H2, "--backend", "database", "--provider", "kafka:127.0.0.1:9092");
        assertThat(run.exitCode()).isEqualTo(2);
        String first = run.err().lines().findFirst().orElse("");
        assertThat(first).as("the error's one line").contains("--provider kafka:127.0.0.1:9092").contains("names no topic")
                .contains("kafka:BOOTSTRAP/TOPIC");
    }

    @Test
    void optionsComeFromTheEnvironment() {
        CliRun run = CliRun.withEnvironment(Map.of("LEASEBOX_JDBC_URL", "jdbc:h2:mem:cli-env;DB_CLOSE_DELAY=-1"),
                "status");
        // the URL came from LEASEBOX_JDBC_URL: the failure is about the table there, not a missing option
        assertThat(run.err()).doesNotContain("Missing required option").contains("cli-env");
    }

    @Test
    void schemaNeedsADialectToPrint() {
        CliRun run = CliRun.of("schema");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("--dialect is required");
    }

    @Test
    void anOutOfRangeBatchNamesTheFlagAndItsRange() {
        CliRun run = CliRun.of("worker", "--jdbc-url", H2, "--backend", "database", "--batch", "-5");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("--batch must be in 1..10000, was -5").doesNotContain("DrainOptions");
        assertThat(run.errLines()).isEqualTo(1);
    }

    @Test
    void anImpossibleMetricsPortNamesTheFlag() {
        CliRun run = CliRun.of("worker", "--jdbc-url", H2, "--backend", "database", "--metrics-port", "99999");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("--metrics-port must be between 0 and 65535 (0 picks a free port), was 99999");
    }

    @Test
    void aMetricsPortInUseSaysToChooseAnother() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            CliRun run = CliRun.of("worker", "--jdbc-url", H2, "--backend", "database", "--metrics-port",
                    String.valueOf(taken.getLocalPort()));
            assertThat(run.exitCode()).isEqualTo(2);
            assertThat(run.err()).contains("--metrics-port " + taken.getLocalPort() + ": 127.0.0.1:" + taken.getLocalPort()
                    + " is in use; choose another port, or 0 for a free one").doesNotContain("UncheckedIOException");
            assertThat(run.errLines()).isEqualTo(1);
        }
    }

    @Test
    void aMalformedJdbcUrlNamesTheFlagAndTheForm() {
        CliRun run = CliRun.of("status", "--jdbc-url", "postgres://127.0.0.1/app");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("--jdbc-url 'postgres://127.0.0.1/app' is not a JDBC URL: write e.g. "
                + "jdbc:postgresql://127.0.0.1:5432/app?user=app").doesNotContain("property jdbcUrl");
        CliRun unknown = CliRun.of("status", "--jdbc-url", "jdbc:oracle:thin:@127.0.0.1:1521/app");
        assertThat(unknown.exitCode()).isEqualTo(2);
        assertThat(unknown.err()).contains("--jdbc-url 'jdbc:oracle:thin:@127.0.0.1:1521/app': not a database leasebox "
                + "supports; Leasebox supports PostgreSQL (jdbc:postgresql:), MariaDB 10.6+ (jdbc:mariadb:, or jdbc:mysql: "
                + "to a MariaDB server) and H2 (jdbc:h2:)");
        CliRun worker = CliRun.of("worker", "--jdbc-url", "jdbc:oracle:thin:@127.0.0.1:1521/app", "--backend", "database");
        assertThat(worker.exitCode()).isEqualTo(2);
        assertThat(worker.err()).contains("not a database leasebox supports").contains("MariaDB").doesNotContain("No suitable driver");
    }

    @Test
    void anUnreadableConfigFileIsOneLineNamingTheVariable(@TempDir Path dir) {
        CliRun run = CliRun.withConfig(Map.of("LEASEBOX_CONFIG", dir.resolve("nope.properties").toString()), "status");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("LEASEBOX_CONFIG names " + dir.resolve("nope.properties"))
                .contains("not a readable file: point it at a properties file or unset it")
                .doesNotContain("IllegalArgumentException");
        assertThat(run.errLines()).isEqualTo(1);
    }

    @Test
    void anUnknownKeyInTheConfigFileIsRefused(@TempDir Path dir) throws Exception {
        Path config = dir.resolve("leasebox.properties");
        Files.writeString(config, "jdbc-ulr=jdbc:h2:mem:x\nbatch=5\n");
        CliRun run = CliRun.withConfig(Map.of("LEASEBOX_CONFIG", config.toString()), "status");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains(config + ": unknown key 'jdbc-ulr' (did you mean jdbc-url?)");
        assertThat(run.errLines()).isEqualTo(1);
    }

    @Test
    void aTableWithoutTheClaimColumnsSaysToApplyV2WithTheCli() throws Exception {
        String url = "jdbc:h2:mem:cli-no-v2;DB_CLOSE_DELAY=-1";
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
            s.execute(new String(getClass().getResourceAsStream("/db/leasebox/h2/V1__create_leasebox_outbox.sql").readAllBytes(),
                    StandardCharsets.UTF_8).replace("${table}", "leasebox_outbox").replace("${table_name}", "leasebox_outbox"));
        }
        CliRun run = CliRun.of("worker", "--jdbc-url", url, "--backend", "database", "--exit-when-idle");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("lacks the claim columns").contains("V2__add_claim_leases.sql")
                .contains("leasebox schema --apply").doesNotContain("useClaimLeases");
    }

    @Test
    void anUnknownCommandIsNamedWithTheChoices() {
        CliRun run = CliRun.of("nosuch");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("leasebox: unknown command 'nosuch': choose one of ").contains("worker")
                .contains("(see: leasebox --help)").doesNotContain("leasebox leasebox");
        CliRun help = CliRun.of("nosuch", "--help");
        assertThat(help.exitCode()).isEqualTo(2);
        assertThat(help.err()).contains("unknown command 'nosuch'");
    }

    @Test
    void benchAndChaosAreNotInThisJarAndTheErrorNamesTheJarsThatShipThem() {
        CliRun bench = CliRun.of("bench", "--workers", "4");
        assertThat(bench.exitCode()).isEqualTo(2);
        assertThat(bench.err()).contains("leasebox-bench.jar").contains("./leasebox bench").doesNotContain("unknown command");
        CliRun chaos = CliRun.of("chaos");
        assertThat(chaos.exitCode()).isEqualTo(2);
        assertThat(chaos.err()).contains("leasebox-chaos.jar").contains("./leasebox chaos").doesNotContain("unknown command");
    }

    @Test
    void enqueueIntoAMissingTableNamesTheMigration() {
        CliRun run = CliRun.of("enqueue", "--jdbc-url", "jdbc:h2:mem:cli-enqueue-missing;DB_CLOSE_DELAY=-1", "--count", "1");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("does not exist").contains("leasebox schema --apply").doesNotContain("SQL statement");
        assertThat(run.errLines()).isEqualTo(2);
    }

    @Test
    void theTopLevelHelpSummarisesEachCommandInWholeSentences() {
        CommandLine root = LeaseboxMain.commandLine();
        root.getSubcommands().forEach((name, sub) -> {
            String[] header = sub.getCommandSpec().usageMessage().header();
            String summary = header.length > 0 ? header[0] : sub.getCommandSpec().usageMessage().description()[0];
            assertThat(summary).as(name).endsWith(".");
        });
    }

    @Test
    void theWorkersHelpShowsWhatMostUsersNeedFirstAndTheTuningOptionsAfter() {
        CliRun help = CliRun.of("worker", "--help");
        assertThat(help.exitCode()).isZero();
        String out = help.out();
        String options = out.substring(out.indexOf("\n  ", out.indexOf("Usage:") + 1)); // after the synopsis
        options = options.substring(options.indexOf("--jdbc-url") - 1);
        int tuning = options.indexOf("Tuning (the defaults suit most fleets):");
        assertThat(tuning).as(out).isPositive();
        assertThat(options.indexOf("--backend=")).isPositive().isLessThan(tuning);
        assertThat(options.indexOf("--provider=")).isPositive().isLessThan(tuning);
        assertThat(options.indexOf("--candidate-over-ask")).isGreaterThan(tuning);
        assertThat(options.indexOf("--release-in-background")).isGreaterThan(tuning);
        assertThat(options.split("--candidate-spread", -1)).as("each option documented once").hasSize(2);
    }

    @Test
    void aLeaseTtlTooShortToRenewIsRefused() {
        CliRun run = CliRun.of("worker", "--jdbc-url", H2, "--backend", "database", "--lease-ttl", "200ms");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("--lease-ttl must be at least 1s (it is renewed every third of it, a round trip each "
                + "time), was 200ms");
    }

    @Test
    void aBackendOptionTheDatabaseBackendDoesNotKnowIsRefused() {
        CliRun run = CliRun.of("worker", "--jdbc-url", H2, "--backend", "database", "--backend-option", "session-timeout=10s");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("--backend-option session-timeout: --backend database takes no backend options");
    }

    @Test
    void backendNamesAreAcceptedInAnyCase() {
        CliRun run = CliRun.of("worker", "--jdbc-url", H2, "--backend", "Redis");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("--backend redis needs --redis (");
    }

    @Test
    void theEnvironmentVariableOfAnOptionIsDerivedFromItsName() {
        assertThat(EnvironmentDefaults.variableFor("--jdbc-url")).isEqualTo("LEASEBOX_JDBC_URL");
        assertThat(EnvironmentDefaults.variableFor("--lease-ttl")).isEqualTo("LEASEBOX_LEASE_TTL");
    }
}
