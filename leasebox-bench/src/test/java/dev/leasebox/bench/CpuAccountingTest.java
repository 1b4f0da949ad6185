package dev.leasebox.bench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** The /proc parsing and the CPU-per-10k arithmetic, on lines and a /proc tree written here. */
class CpuAccountingTest {

    @TempDir
    Path proc;

    @Test
    void parsesAStatLineWhoseCommandHoldsSpacesAndParentheses() {
        String line = "2249 (post (gres) x) S 2248 2248 2248 0 -1 4194368 1234 0 0 0 531 207 17 4 20 0 1 0 4711 "
                + "223789056 7095 18446744073709551615 1 1 0 0 0 0 4194304 19935232 84487 0 0 0 17 1 0 0 0 0 0\n";
        ProcStat stat = ProcStat.parse(line).orElseThrow();
        assertThat(stat.pid()).isEqualTo(2249);
        assertThat(stat.comm()).isEqualTo("post (gres) x");
        assertThat(stat.ppid()).isEqualTo(2248);
        assertThat(stat.utime()).isEqualTo(531);
        assertThat(stat.stime()).isEqualTo(207);
        assertThat(stat.cutime()).isEqualTo(17);
        assertThat(stat.cstime()).isEqualTo(4);
        assertThat(stat.ownTicks()).isEqualTo(738);
        assertThat(stat.ticksWithReapedChildren()).isEqualTo(759);
    }

    @Test
    void refusesWhatIsNotAStatLine() {
        assertThat(ProcStat.parse("")).isEmpty();
        assertThat(ProcStat.parse("12 (x) S 1 2 3")).as("too few fields").isEmpty();
        assertThat(ProcStat.parse("x (y) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15")).isEmpty();
    }

    @Test
    void machineTicksCountIdleAndIowaitAsNotBusy() {
        long[] ticks = ProcStat.machineTicks("cpu  100 10 50 800 40 0 5 0 0 0").orElseThrow();
        assertThat(ticks).containsExactly(165, 1005);
        assertThat(ProcStat.machineTicks("cpu0 1 2 3 4")).isEmpty();
        assertThat(CpuMeter.busyPercent(Optional.of(new long[]{100, 1000}), Optional.of(new long[]{250, 1200})))
                .isEqualTo(75.0);
        assertThat(CpuMeter.busyPercent(Optional.empty(), Optional.of(new long[]{1, 2}))).isNaN();
    }

    @Test
    void aTreeIsItsRootWithItsReapedChildrenPlusItsLiveChildren() throws IOException {
        stat(100, 1, 50, 20, 7, 3);   // the root: 70 own, 10 of children it reaped
        stat(101, 100, 5, 5, 0, 0);   // a live child
        stat(102, 100, 30, 10, 0, 0); // another
        stat(103, 101, 999, 0, 0, 0); // a grandchild: not followed
        stat(200, 1, 999, 999, 0, 0); // another process
        ProcessTree tree = new ProcessTree(proc, 100, "test tree");
        assertThat(tree.total()).hasValue(70 + 10 + 10 + 40);

        Files.delete(proc.resolve("102").resolve("stat")); // child 102 exits and is reaped: its 40 move to the root
        Files.delete(proc.resolve("102"));
        stat(100, 1, 50, 20, 47, 3);
        assertThat(tree.total()).as("unchanged by the exit").hasValue(130);
        assertThat(tree.ticks()).contains(java.util.Map.of(100L, 130L));
        assertThat(new ProcessTree(proc, 999, "gone").ticks()).isEmpty();
    }

    @Test
    void cpuPerTenThousandRowsIsSecondsTimesTenThousandOverRows() {
        assertThat(CpuFigures.per10k(5.5, 100_000)).isCloseTo(0.55, within(1e-12));
        assertThat(CpuFigures.per10k(1, 0)).isNaN();
        assertThat(CpuFigures.per10k(Double.NaN, 10)).isNaN();
        CpuFigures figures = new CpuFigures(5.5, 7.0, 1.5, Double.NaN, 90, 100_000, "x");
        assertThat(figures.databasePer10k()).isCloseTo(0.55, within(1e-12));
        assertThat(figures.serverPer10k()).isCloseTo(0.70, within(1e-12));
        assertThat(figures.jvmPer10k()).isCloseTo(0.15, within(1e-12));
        assertThat(figures.coordinatorPer10k()).isNaN();
        assertThat(figures.totalPer10k()).as("a coordinator not measured adds nothing").isCloseTo(0.70, within(1e-12));
        assertThat(CpuFigures.shown(figures.coordinatorPer10k())).isEqualTo("n/a");
        assertThat(CpuFigures.shown(figures.databasePer10k())).isEqualTo("0.55");
    }

    @Test
    void aMeterWithoutProcSaysNotApplicableButStillReadsTheJvm() throws InterruptedException {
        CpuMeter meter = new CpuMeter(proc.resolve("missing"), Optional.empty(), Optional.empty(), Optional.empty(), true,
                "none");
        meter.start();
        long until = System.nanoTime() + 20_000_000;
        long spin = 0;
        while (System.nanoTime() < until) {
            spin++; // burns some CPU for the JVM's reading to move
        }
        meter.stop();
        CpuFigures figures = meter.figures(spin > 0 ? 10_000 : 1);
        assertThat(figures.databaseSeconds()).isNaN();
        assertThat(figures.machineBusyPercent()).isNaN();
        assertThat(figures.jvmSeconds()).isPositive();
        assertThat(CpuMeter.NONE.figures(10)).isEqualTo(CpuFigures.NONE);
    }

    @Test
    void ticksBetweenTwoReadingsCountWhatEachProcessGainedAndAllOfANewOne() {
        java.util.Map<Long, Long> before = java.util.Map.of(1L, 100L, 2L, 50L, 3L, 70L);
        java.util.Map<Long, Long> after = java.util.Map.of(1L, 130L, 2L, 50L, 4L, 12L); // 3 has gone, 4 is new
        assertThat(TickSource.between(before, after)).isEqualTo(30 + 0 + 12);
        assertThat(TickSource.between(java.util.Map.of(5L, 90L), java.util.Map.of(5L, 10L)))
                .as("a pid reused by a younger process counts nothing negative").isZero();
    }

    @Test
    void ownTcpPortsAreTheLocalPortsOfThisProcessesSocketInodes() {
        assertThat(PostgresOwnBackends.socketInode("socket:[40615]")).contains(40615L);
        assertThat(PostgresOwnBackends.socketInode("/dev/null")).isEmpty();
        java.util.List<String> tcp = java.util.List.of(
                "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode",
                "   0: 0100007F:D2F0 0100007F:1538 01 00000000:00000000 00:00000000 00000000     0        0 40615 1 0 20 4 30 10 -1",
                "   1: 0100007F:D2F2 0100007F:1538 01 00000000:00000000 00:00000000 00000000     0        0 40616 1 0 20 4 30 10 -1",
                "   2: 00000000:1538 00000000:0000 0A 00000000:00000000 00:00000000 00000000   106        0 22001 1 0 100 0 0 10 0");
        assertThat(PostgresOwnBackends.localPorts(tcp, java.util.Set.of(40615L, 22001L))).containsExactlyInAnyOrder(0xD2F0, 5432);
    }

    private void stat(long pid, long ppid, long utime, long stime, long cutime, long cstime) throws IOException {
        Path dir = Files.createDirectories(proc.resolve(Long.toString(pid)));
        Files.writeString(dir.resolve("stat"), pid + " (p" + pid + ") S " + ppid + " 1 1 0 -1 0 0 0 0 0 " + utime + " "
                + stime + " " + cutime + " " + cstime + " 20 0 1 0 1 1 1\n");
    }
}
