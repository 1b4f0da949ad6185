package dev.leasebox.bench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A tiny bench against the real PostgreSQL (LEASEBOX_JDBC_URL, else 127.0.0.1:5432/test) and a
 * redis-server the bench starts on a free port and kills afterwards: the CSV has a row per backend
 * and no entry was finalized twice. Speed is never asserted.
 */
class BenchIT {

    @TempDir
    Path dir;

    @Test
    void aTinyBenchWritesOneRowPerBackendWithoutDuplicates() throws Exception {
        Path csv = dir.resolve("bench.csv");
        StringWriter out = new StringWriter();
        CommandLine command = new CommandLine(new BenchCommand());
        command.setOut(new PrintWriter(out));
        command.setErr(new PrintWriter(new StringWriter()));
        String jdbcUrl = System.getenv().getOrDefault("LEASEBOX_JDBC_URL", BenchCommand.DEFAULT_JDBC_URL);

        int exit = command.execute("--backends", "database,redis", "--workers", "2", "--batch", "10",
                "--seconds", "2", "--warmup", "1", "--jdbc-url", jdbcUrl, "--csv", csv.toString(),
                "--backend-option", "redis.pool-size=3");

        assertThat(exit).as(out.toString()).isZero();
        List<String> lines = Files.readAllLines(csv);
        assertThat(lines).hasSize(3);
        List<String> header = Arrays.asList(lines.get(0).split(","));
        assertThat(header).startsWith("backend", "workers", "batch", "rows_per_s", "ratio_to_database");
        Map<String, Map<String, String>> rows = lines.stream().skip(1).map(line -> row(header, line))
                .collect(Collectors.toMap(r -> r.get("backend"), r -> r));
        assertThat(rows).containsOnlyKeys("database", "redis");
        for (Map<String, String> row : rows.values()) {
            assertThat(row.get("workers")).isEqualTo("2");
            assertThat(row.get("batch")).isEqualTo("10");
            assertThat(row.get("finalized_twice")).isEqualTo("0");
            assertThat(row.get("emitted_twice")).isEqualTo("0");
            assertThat(Long.parseLong(row.get("completions"))).isPositive();
            assertThat(row.get("delivered_rows")).isEqualTo(row.get("completions"));
            assertThat(row.get("ratio_to_database")).isNotEmpty();
        }
        assertThat(rows.get("database").get("ratio_to_database")).isEqualTo("1.000");
        assertThat(rows.get("redis").get("coordinator")).startsWith("embedded redis-server redis://127.0.0.1:")
                .endsWith("; options pool-size=3");
        for (Map<String, String> row : rows.values()) {
            assertThat(row.get("emitted_twice")).as("a fault-free cell emits nothing twice").isEqualTo("0");
            assertThat(row.get("refused_completions")).isEqualTo("0");
        }
        assertThat(out.toString()).contains("no entry finalized or emitted twice, no completion refused");
    }

    @Test
    void theBaselineAndTheBacklogModeShareOneCsvWithTheirRatios() throws Exception {
        Path csv = dir.resolve("baseline.csv");
        StringWriter out = new StringWriter();
        CommandLine command = new CommandLine(new BenchCommand());
        command.setOut(new PrintWriter(out));
        command.setErr(new PrintWriter(new StringWriter()));
        String jdbcUrl = System.getenv().getOrDefault("LEASEBOX_JDBC_URL", BenchCommand.DEFAULT_JDBC_URL);

        int exit = command.execute("--backends", "database,baseline", "--workers", "2", "--batch", "10",
                "--seconds", "1", "--warmup", "1", "--backlog", "500", "--history", "100", "--rounds", "2",
                "--jdbc-url", jdbcUrl, "--csv", csv.toString());

        assertThat(exit).as(out.toString()).isZero();
        List<String> lines = Files.readAllLines(csv);
        assertThat(lines).as("2 backends x 2 modes x 2 rounds").hasSize(1 + 8);
        List<String> header = Arrays.asList(lines.get(0).split(","));
        List<Map<String, String>> rows = lines.stream().skip(1).map(line -> row(header, line)).toList();
        assertThat(rows).extracting(r -> r.get("backend") + "/" + r.get("mode") + "/" + r.get("round"))
                .containsExactlyInAnyOrder("database/feeder/1", "baseline/feeder/1", "database/backlog/1", "baseline/backlog/1",
                        "database/feeder/2", "baseline/feeder/2", "database/backlog/2", "baseline/backlog/2");
        for (Map<String, String> row : rows) {
            assertThat(row.get("finalized_twice")).isEqualTo("0");
            assertThat(row.get("delivered_rows")).isEqualTo(row.get("completions"));
            assertThat(row.get("ratio_to_baseline")).isNotEmpty();
            assertThat(row.get("ratio_to_database")).isNotEmpty();
            if (row.get("mode").equals("backlog")) {
                assertThat(row.get("rows_in_window")).as("the whole backlog, drained").isEqualTo("500");
            }
            if (row.get("backend").equals("baseline")) {
                assertThat(row.get("ratio_to_baseline")).isEqualTo("1.000");
            }
        }
        assertThat(out.toString()).contains("VACUUM ANALYZEd before each window").contains("vs base");
    }

    @Test
    void aBackendOptionMustNameABackendBeingMeasured() {
        StringWriter err = new StringWriter();
        CommandLine command = new CommandLine(new BenchCommand());
        command.setOut(new PrintWriter(new StringWriter()));
        command.setErr(new PrintWriter(err));

        int exit = command.execute("--backends", "database,hazelcast", "--backend-option", "redis.pool-size=3");

        assertThat(exit).isNotZero();
        assertThat(err.toString()).contains("--backend-option redis.pool-size: name it BACKEND.NAME=VALUE with BACKEND one "
                + "of the external backends in --backends [hazelcast]");
    }

    @Test
    void aMisspeltBackendOptionFailsBeforeAnyCellRuns() throws Exception {
        Path csv = dir.resolve("misspelt.csv");
        StringWriter err = new StringWriter();
        CommandLine command = new CommandLine(new BenchCommand());
        command.setOut(new PrintWriter(new StringWriter()));
        command.setErr(new PrintWriter(err));
        String jdbcUrl = System.getenv().getOrDefault("LEASEBOX_JDBC_URL", BenchCommand.DEFAULT_JDBC_URL);

        int exit = command.execute("--backends", "database,redis", "--jdbc-url", jdbcUrl, "--csv", csv.toString(),
                "--backend-option", "redis.pool-size=none");

        assertThat(exit).isNotZero();
        assertThat(err.toString()).contains("pool-size");
        assertThat(csv).as("no cell ran, not even the database's").doesNotExist();
    }

    @Test
    void backendOptionsAreHandedToTheirBackendWithoutThePrefix() {
        BenchCommand bench = new BenchCommand();
        new CommandLine(bench).parseArgs("--backend-option", "hazelcast.row-group-block=128",
                "--backend-option", "zookeeper.session-timeout=10s", "--backend-option", "hazelcast.row-group-linger=0");

        assertThat(bench.optionsFor("hazelcast")).containsExactly(Map.entry("row-group-block", "128"), Map.entry("row-group-linger", "0"));
        assertThat(bench.optionsFor("zookeeper")).containsExactly(Map.entry("session-timeout", "10s"));
        assertThat(bench.optionsFor("redis")).isEmpty();
    }

    private static Map<String, String> row(List<String> header, String line) {
        String[] fields = line.split(",(?=(?:[^\"]*\"[^\"]*\")*[^\"]*$)", -1);
        assertThat(fields).hasSize(header.size());
        java.util.LinkedHashMap<String, String> row = new java.util.LinkedHashMap<>();
        for (int i = 0; i < fields.length; i++) {
            row.put(header.get(i), fields[i].replaceAll("^\"|\"$", ""));
        }
        return row;
    }
}
