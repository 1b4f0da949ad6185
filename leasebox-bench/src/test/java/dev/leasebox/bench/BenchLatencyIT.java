package dev.leasebox.bench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A tiny latency run of the database backend against the real PostgreSQL (LEASEBOX_JDBC_URL, else
 * 127.0.0.1:5432/test): the throughput cell, then an idle and a loaded latency cell at half its rate. The
 * CSV has the latency and CPU columns filled; no value is asserted beyond being there.
 */
class BenchLatencyIT {

    @TempDir
    Path dir;

    @Test
    void latencyCellsFillTheirColumns() throws Exception {
        Path csv = dir.resolve("latency.csv");
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine command = new CommandLine(new BenchCommand());
        command.setOut(new PrintWriter(out));
        command.setErr(new PrintWriter(err));
        String jdbcUrl = System.getenv().getOrDefault("LEASEBOX_JDBC_URL", BenchCommand.DEFAULT_JDBC_URL);

        int exit = command.execute("--backends", "database", "--workers", "2", "--batch", "10", "--seconds", "1",
                "--warmup", "1", "--history", "100", "--latency", "--latency-seconds", "2", "--idle-rate", "5",
                "--rate", "half", "--wake-ups", "false", "--jdbc-url", jdbcUrl, "--csv", csv.toString());

        assertThat(exit).as(out + "\n" + err).isZero();
        List<String> lines = Files.readAllLines(csv);
        List<String> header = Arrays.asList(lines.get(0).split(","));
        List<Map<String, String>> rows = lines.stream().skip(1).map(line -> row(header, line)).toList();
        assertThat(rows).extracting(r -> r.get("mode") + "/" + r.get("latency_load"))
                .containsExactly("feeder/", "latency/idle", "latency/loaded");
        double throughput = Double.parseDouble(rows.get(0).get("rows_per_s"));
        // rows_per_s is written to 0.1 and arrival_rate to 0.01, each rounded from the unrounded rate: half of
        // the written throughput is within 0.025 + 0.005 of the written arrival rate
        assertThat(Double.parseDouble(rows.get(2).get("arrival_rate"))).as("half the throughput cell's rate")
                .isCloseTo(throughput / 2, org.assertj.core.api.Assertions.within(0.03));
        for (Map<String, String> latency : rows.subList(1, 3)) {
            assertThat(latency.get("wake_ups")).isEqualTo("false");
            assertThat(Long.parseLong(latency.get("arrivals"))).isPositive();
            assertThat(latency.get("late_arrivals")).isNotEmpty();
            for (String column : List.of("emit_p50_ms", "emit_p99_ms", "emit_p999_ms", "emit_max_ms", "final_p50_ms",
                    "final_p99_ms", "final_p999_ms", "final_max_ms", "writer_lag_p99_ms")) {
                assertThat(latency.get(column)).as(column).isNotEmpty();
            }
            assertThat(latency.get("finalized_twice")).isEqualTo("0");
            assertThat(latency.get("delivered_rows")).isEqualTo(latency.get("completions"));
        }
        if (Files.isReadable(Path.of("/proc/self/stat"))) {
            for (Map<String, String> row : rows) {
                assertThat(row.get("cpu_database_s_per_10k")).as("the local PostgreSQL's processes").isNotEmpty();
                assertThat(row.get("cpu_jvm_s_per_10k")).isNotEmpty();
                assertThat(row.get("cpu_processes")).contains("postgres pid");
            }
        }
        assertThat(out.toString()).contains("Latency (open-loop Poisson arrivals").contains("db cpu");
        assertThat(dir.resolve("latency.html")).content().contains("Commit to finalized");
    }

    @Test
    void wakeUpsTakeEachValueOnce() {
        StringWriter err = new StringWriter();
        CommandLine command = new CommandLine(new BenchCommand());
        command.setOut(new PrintWriter(new StringWriter()));
        command.setErr(new PrintWriter(err));

        int exit = command.execute("--backends", "database", "--latency", "--wake-ups", "true,true");

        assertThat(exit).isNotZero();
        assertThat(err.toString()).contains("--wake-ups takes true, false, or both once each, was [true, true]");
    }

    private static Map<String, String> row(List<String> header, String line) {
        String[] fields = line.split(",(?=(?:[^\"]*\"[^\"]*\")*[^\"]*$)", -1);
        assertThat(fields).hasSize(header.size());
        Map<String, String> row = new LinkedHashMap<>();
        for (int i = 0; i < fields.length; i++) {
            row.put(header.get(i), fields[i].replaceAll("^\"|\"$", ""));
        }
        return row;
    }
}
