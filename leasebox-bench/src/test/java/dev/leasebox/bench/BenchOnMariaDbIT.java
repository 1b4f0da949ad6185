package dev.leasebox.bench;

import dev.leasebox.cli.LeaseboxMain;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A tiny bench of partition leases against the real MariaDB (LEASEBOX_MARIADB_URL, else
 * 127.0.0.1:3306/test as root) in a database the bench creates and drops: a row per cell, no entry
 * finalized twice, the table agreeing with the completions. Speed is never asserted.
 */
class BenchOnMariaDbIT {

    private static final String JDBC_URL = System.getenv()
            .getOrDefault("LEASEBOX_MARIADB_URL", "jdbc:mariadb://127.0.0.1:3306/test?user=root");

    @TempDir
    Path dir;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    /** {@code leasebox bench ARGS}, as the jar runs it (errors as one line). */
    private int bench(String... args) {
        CommandLine command = LeaseboxMain.commandLine();
        command.setOut(new PrintWriter(out));
        command.setErr(new PrintWriter(err));
        String[] line = new String[args.length + 1];
        line[0] = "bench";
        System.arraycopy(args, 0, line, 1, args.length);
        return command.execute(line);
    }

    @Test
    void partitionLeasesAreMeasuredBesideTheDatabaseBackendsRowLeases() throws Exception {
        Path csv = dir.resolve("mariadb.csv");
        int exit = bench("--backends", "database,redis", "--granularity", "partition", "--workers", "2",
                "--batch", "10", "--seconds", "2", "--warmup", "1", "--history", "1000", "--jdbc-url", JDBC_URL,
                "--csv", csv.toString());

        assertThat(exit).as(out + "\n" + err).isZero();
        List<String> lines = Files.readAllLines(csv);
        assertThat(lines).extracting(line -> line.split(",")[0]).containsExactlyInAnyOrder("backend", "database",
                "database/partition-lean", "redis/partition-lean");
        List<String> header = List.of(lines.get(0).split(","));
        for (String line : lines.subList(1, lines.size())) {
            List<String> cells = List.of(line.split(","));
            assertThat(cells.get(header.indexOf("finalized_twice"))).as(line).isEqualTo("0");
            assertThat(Long.parseLong(cells.get(header.indexOf("completions")))).as(line).isPositive();
            assertThat(cells.get(header.indexOf("delivered_rows"))).as(line)
                    .isEqualTo(cells.get(header.indexOf("completions")));
        }
        assertThat(out.toString()).contains("ANALYZEd (MariaDB) before each window");
    }

    @Test
    void theBaselineIsRefusedOnMariaDbWithOneLineNamingTheFlag() {
        int exit = bench("--backends", "database,baseline", "--jdbc-url", JDBC_URL);

        assertThat(exit).isNotZero();
        assertThat(err.toString()).startsWith("leasebox bench: --backends baseline needs PostgreSQL")
                .doesNotContain("\tat ");
    }
}
