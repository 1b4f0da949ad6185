package dev.leasebox.bench;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class BenchReportTest {

    private static BenchResult result(String backend, int workers, int batch, long rows, double seconds) {
        return new BenchResult(backend, workers, batch, seconds, rows, 1.25, 2.5, 10.0, 40, 900, 900, 0, 0, 0,
                backend.equals("database") ? "database: FOR UPDATE SKIP LOCKED" : "embedded " + backend + ", 127.0.0.1:1", "release=sync durable-claims",
                "candidates 1.00 ms, acquire 0.50 ms", 2.25);
    }

    @Test
    void ratiosCompareWithTheDatabaseAtTheSameWorkersAndBatch() {
        BenchReport report = new BenchReport();
        report.add(result("database", 4, 100, 10_000, 10));
        report.add(result("redis", 4, 100, 12_000, 10));
        report.add(result("database", 1, 1, 500, 10));
        report.add(result("zookeeper", 1, 1, 350, 10));
        report.add(result("hazelcast", 8, 10, 350, 10));

        List<BenchResult> r = report.results();
        assertThat(report.ratioToDatabase(r.get(0))).isEqualTo(1.0);
        assertThat(report.ratioToDatabase(r.get(1))).isEqualTo(1.2);
        assertThat(report.ratioToDatabase(r.get(3))).isEqualTo(0.7);
        assertThat(report.ratioToDatabase(r.get(4))).as("no database cell at W=8 B=10").isNaN();
    }

    @Test
    void csvHasTheHeaderOneLinePerCellAndQuotesFieldsWithCommas() {
        BenchReport report = new BenchReport();
        report.add(result("database", 4, 100, 10_000, 10));
        report.add(result("redis", 4, 100, 7_500, 10));
        report.add(result("zookeeper", 8, 10, 1_000, 10));

        String[] lines = report.csv().split("\n");
        assertThat(lines).hasSize(4);
        assertThat(lines[0]).startsWith("backend,workers,batch,rows_per_s,ratio_to_database,claim_p50_ms,claim_p99_ms".replace(
                "claim_p50_ms,claim_p99_ms", "claim_p50_ms,claim_p90_ms,claim_p99_ms"));
        assertThat(lines[1]).startsWith("database,4,100,1000.0,1.000,1.250,2.500,10.000,10.00,10000,40,900,900,0,0,0,");
        assertThat(lines[2]).startsWith("redis,4,100,750.0,0.750,");
        assertThat(lines[2]).contains(",\"embedded redis, 127.0.0.1:1\",release=sync durable-claims,"
                + "\"candidates 1.00 ms, acquire 0.50 ms\",2.25,,feeder,1,false,")
                .as("a throughput cell: no CPU measured, no latency figures").endsWith(",false" + ",".repeat(22));
        assertThat(lines[3]).as("no baseline: an empty ratio field").startsWith("zookeeper,8,10,100.0,,");
        for (String line : lines) {
            assertThat(line.replaceAll("\"[^\"]*\"", "x").split(",", -1)).hasSize(BenchReport.COLUMNS.size());
        }
    }

    @Test
    void aLatencyCellFillsTheLatencyAndCpuColumnsAndHasNoRatio() {
        BenchReport report = new BenchReport();
        report.add(result("database", 4, 100, 20_000, 10));
        LatencySummary emission = new LatencySummary(1_000, 1.25, 9.5, 12.0, 15.125);
        LatencySummary finalized = new LatencySummary(1_000, 3.0, 14.0, 20.0, 21.5);
        report.add(result("database", 4, 100, 1_000, 10)
                .with(new CpuFigures(0.5, 0.75, 0.25, Double.NaN, 80, 1_000, "database: postgres pid 1"), false)
                .with(new LatencyFigures(LatencyFigures.LOADED, 100, "--rate", false, 1_000, 3, 900, 0, emission, finalized,
                        new LatencySummary(1_000, 0.1, 0.9, 1.5, 2.0))));

        String[] lines = report.csv().split("\n");
        List<String> header = List.of(lines[0].split(","));
        List<String> latency = List.of(lines[2].split(",(?=(?:[^\"]*\"[^\"]*\")*[^\"]*$)", -1));
        assertThat(latency).hasSize(header.size());
        assertThat(latency.get(header.indexOf("mode"))).isEqualTo("latency");
        assertThat(latency.get(header.indexOf("ratio_to_database"))).as("its rate is the arrival rate").isEmpty();
        assertThat(latency.get(header.indexOf("latency_load"))).isEqualTo("loaded");
        assertThat(latency.get(header.indexOf("arrival_rate"))).isEqualTo("100.00");
        assertThat(latency.get(header.indexOf("late_arrivals"))).isEqualTo("3");
        assertThat(latency.get(header.indexOf("emit_p50_ms"))).isEqualTo("1.250");
        assertThat(latency.get(header.indexOf("emit_max_ms"))).isEqualTo("15.125");
        assertThat(latency.get(header.indexOf("final_p999_ms"))).isEqualTo("20.000");
        assertThat(latency.get(header.indexOf("writer_lag_p99_ms"))).isEqualTo("0.900");
        assertThat(latency.get(header.indexOf("cpu_database_s_per_10k"))).isEqualTo("5.000");
        assertThat(latency.get(header.indexOf("cpu_database_server_s_per_10k"))).isEqualTo("7.500");
        assertThat(latency.get(header.indexOf("cpu_jvm_s_per_10k"))).isEqualTo("2.500");
        assertThat(latency.get(header.indexOf("cpu_coordinator_s_per_10k"))).isEmpty();
        assertThat(report.table()).contains("Latency (open-loop Poisson arrivals")
                .contains("1.3/9.5/12.0/15.1").contains("3.0/14.0/20.0/21.5");
        assertThat(report.ratioToDatabase(report.results().get(0))).as("the latency cell is no reference").isEqualTo(1.0);
    }

    @Test
    void csvFieldsDoubleEmbeddedQuotes() {
        assertThat(BenchReport.csvField("plain")).isEqualTo("plain");
        assertThat(BenchReport.csvField("say \"hi\"")).isEqualTo("\"say \"\"hi\"\"\"");
    }

    @Test
    void checksFailWhenAnEntryWasFinalizedOrEmittedTwiceACompletionRefusedOrTheTableDisagrees() {
        BenchResult ok = result("redis", 4, 100, 1, 1);
        BenchResult twice = new BenchResult("redis", 4, 100, 1, 1, 1, 1, 1, 1, 900, 900, 1, 1, 0, "x", "v", "claim 1.00 ms", 1.5);
        BenchResult disagree = new BenchResult("redis", 4, 100, 1, 1, 1, 1, 1, 1, 899, 900, 0, 0, 0, "x", "v", "claim 1.00 ms", 1.5);
        assertThat(ok.checksHeld()).isTrue();
        assertThat(twice.checksHeld()).isFalse();
        assertThat(twice.checkFailures()).contains("1 entries finalized twice");
        assertThat(disagree.checksHeld()).isFalse();
        assertThat(disagree.checkFailures()).contains("899 rows DELIVERED but 900 completions");
        BenchResult emittedTwice = new BenchResult("redis", 4, 100, 1, 1, 1, 1, 1, 1, 900, 900, 0, 3, 0, "x", "v", "claim 1.00 ms", 1.5);
        BenchResult refused = new BenchResult("redis", 4, 100, 1, 1, 1, 1, 1, 1, 900, 900, 0, 0, 2, "x", "v", "claim 1.00 ms", 1.5);
        assertThat(emittedTwice.checksHeld()).as("a fault-free cell emits nothing twice").isFalse();
        assertThat(emittedTwice.checkFailures()).isEqualTo("3 entries emitted twice in a cell without faults;");
        assertThat(refused.checksHeld()).as("a fault-free cell has no stale completion").isFalse();
        assertThat(refused.checkFailures()).isEqualTo("2 completions refused as stale in a cell without faults;");

        BenchReport report = new BenchReport();
        report.add(ok);
        assertThat(report.checksHeld()).isTrue();
        report.add(disagree);
        assertThat(report.checksHeld()).isFalse();
    }

    @Test
    void theChartSitsNextToTheCsv() {
        assertThat(BenchCommand.htmlNextTo(Path.of("out/bench.csv"))).isEqualTo(Path.of("out/bench.html"));
        assertThat(BenchCommand.htmlNextTo(Path.of("bench"))).isEqualTo(Path.of("bench.html"));
    }

    @Test
    void theChartDrawsABarPerMeasuredCellAndEscapesText() {
        BenchReport report = new BenchReport();
        report.add(result("database", 4, 100, 10_000, 10));
        report.add(result("redis", 4, 100, 7_500, 10));
        String html = BenchChart.html(report, "bench <test>");
        assertThat(html).contains("<svg").contains("bench &lt;test&gt;");
        assertThat(html.split("<rect", -1)).hasSize(1 + 4); // two backends, two charts
        assertThat(html).contains("redis W=4 B=100: 0.75x");
    }
}
