package dev.leasebox.cli;

import org.junit.jupiter.api.Test;

import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/** Redrive and purge on an in-process H2 database, and what they say to bad input. */
class OperationsCommandsH2Test extends OperationsCommandsScenarios {

    @Override
    protected String url() {
        return "jdbc:h2:mem:ops-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
    }

    private static final String MISSING = "jdbc:h2:mem:ops-missing;DB_CLOSE_DELAY=-1";

    private static void refused(CliRun run, String message) {
        assertThat(run.exitCode()).as(run.err()).isEqualTo(2);
        assertThat(run.err()).contains(message).doesNotContain("\tat ");
        // the line alone; a malformed option also points to the command's --help; never a trace hint for bad input
        assertThat(run.err()).doesNotContain("--verbose");
        assertThat(run.errLines()).as(run.err()).isEqualTo(run.err().contains("(see: leasebox ") ? 2 : 1);
    }

    @Test
    void redriveWithoutASelectorAsksForOne() {
        refused(CliRun.of("redrive", "--jdbc-url", MISSING), "leasebox redrive: choose what to redrive: --ids, --type, "
                + "--partition-key or --older-than, or --all for every dead letter (try --dry-run first)");
        refused(CliRun.of("redrive", "--jdbc-url", MISSING, "--all", "--type", "order"),
                "leasebox redrive: --all redrives every dead letter: leave it out to select by --ids, --type, "
                        + "--partition-key or --older-than");
    }

    @Test
    void badNumbersAndDurationsNameTheFlag() {
        refused(CliRun.of("redrive", "--jdbc-url", MISSING, "--all", "--batch", "0"),
                "leasebox redrive: --batch must be in 1..10000, was 0");
        refused(CliRun.of("purge", "--jdbc-url", MISSING, "--older-than", "7d", "--batch", "-5"),
                "leasebox purge: --batch must be in 1..10000, was -5");
        refused(CliRun.of("redrive", "--jdbc-url", MISSING, "--ids", "1,x"), "'x' is not a long");
        refused(CliRun.of("redrive", "--jdbc-url", MISSING, "--older-than", "PT-1H"),
                "leasebox redrive: --older-than must not be negative, was -1h");
        refused(CliRun.of("purge", "--jdbc-url", MISSING, "--older-than", "soon"),
                "'soon' is not a duration: write e.g. 500ms, 30s, 2m, 1m30s, 1h, 7d or PT30S");
        refused(CliRun.of("purge", "--jdbc-url", MISSING), "Missing required option: '--older-than=DURATION'");
    }

    @Test
    void purgeRefusesNonTerminalStatuses() {
        refused(CliRun.of("purge", "--jdbc-url", MISSING, "--older-than", "7d", "--status", "delivered,pending"),
                "leasebox purge: --status 'pending': purge deletes terminal rows only; use delivered, dead-lettered or "
                        + "failed, comma-separated");
    }

    @Test
    void aMissingTableNamesTheMigration() {
        for (CliRun run : new CliRun[] {CliRun.of("redrive", "--jdbc-url", MISSING, "--all", "--dry-run"),
                CliRun.of("purge", "--jdbc-url", MISSING, "--older-than", "7d")}) {
            assertThat(run.exitCode()).as(run.err()).isEqualTo(2);
            assertThat(run.err()).contains("leasebox schema --apply").doesNotContain("\tat ");
            assertThat(run.errLines()).as(run.err()).isLessThanOrEqualTo(2);
        }
    }
}
