package dev.leasebox.cli;

import org.junit.jupiter.api.Test;

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
        assertThat(run.err()).contains("--backend redis needs --redis URI");
    }

    @Test
    void anUnknownClaimModeOrReleasePolicyNamesTheChoices() {
        CliRun mode = CliRun.of("worker", "--jdbc-url", H2, "--backend", "database", "--claim-mode", "fast");
        assertThat(mode.exitCode()).isEqualTo(2);
        assertThat(mode.err()).contains("Invalid claim mode 'fast': choose recorded or lean");
        CliRun release = CliRun.of("worker", "--jdbc-url", H2, "--backend", "database", "--release-after-completion", "never");
        assertThat(release.exitCode()).isEqualTo(2);
        assertThat(release.err()).contains("choose always or non-terminal");
    }

    @Test
    void theDatabaseBackendRefusesTheLeanClaimModeSayingWhy() {
        CliRun run = CliRun.of("worker", "--jdbc-url", H2, "--backend", "database", "--claim-mode", "lean");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("apply to external lease backends only").contains("claims in the row itself");
    }

    @Test
    void theDatabaseBackendRefusesABackgroundReleaseSayingWhy() {
        CliRun run = CliRun.of("worker", "--jdbc-url", H2, "--backend", "database", "--release-in-background");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("--release-in-background").contains("apply to external lease backends only");
        assertThat(run.errLines()).as("the reason, and how to see the trace").isEqualTo(2);
    }

    @Test
    void aBadDurationSaysHowToWriteOne() {
        CliRun run = CliRun.of("worker", "--jdbc-url", H2, "--backend", "database", "--lease-ttl", "soon");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("'soon' is not a duration: write e.g. 500ms, 30s, 2m, 1h or PT30S");
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
        assertThat(run.err()).contains("does not exist").contains("V1__create_leasebox_outbox.sql")
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
    void anUnknownProviderListsTheFormats() {
        CliRun run = CliRun.of("worker", "--jdbc-url", H2, "--backend", "database", "--provider", "kafka:x");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("unknown provider 'kafka:x'").contains("jdbc-inbox:JDBC_URL");
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
    void theEnvironmentVariableOfAnOptionIsDerivedFromItsName() {
        assertThat(EnvironmentDefaults.variableFor("--jdbc-url")).isEqualTo("LEASEBOX_JDBC_URL");
        assertThat(EnvironmentDefaults.variableFor("--lease-ttl")).isEqualTo("LEASEBOX_LEASE_TTL");
    }
}
