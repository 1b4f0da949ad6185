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
        assertThat(tree.ticks()).hasValue(70 + 10 + 10 + 40);

        Files.delete(proc.resolve("102").resolve("stat")); // child 102 exits and is reaped: its 40 move to the root
        Files.delete(proc.resolve("102"));
        stat(100, 1, 50, 20, 47, 3);
        assertThat(tree.ticks()).as("unchanged by the exit").hasValue(130);
        assertThat(new ProcessTree(proc, 999, "gone").ticks()).isEmpty();
    }

    @Test
    void cpuPerTenThousandRowsIsSecondsTimesTenThousandOverRows() {
        assertThat(CpuFigures.per10k(5.5, 100_000)).isCloseTo(0.55, within(1e-12));
        assertThat(CpuFigures.per10k(1, 0)).isNaN();
        assertThat(CpuFigures.per10k(Double.NaN, 10)).isNaN();
        CpuFigures figures = new CpuFigures(5.5, 1.5, Double.NaN, 90, 100_000, "x");
        assertThat(figures.databasePer10k()).isCloseTo(0.55, within(1e-12));
        assertThat(figures.jvmPer10k()).isCloseTo(0.15, within(1e-12));
        assertThat(figures.coordinatorPer10k()).isNaN();
        assertThat(figures.totalPer10k()).as("a coordinator not measured adds nothing").isCloseTo(0.70, within(1e-12));
        assertThat(CpuFigures.shown(figures.coordinatorPer10k())).isEqualTo("n/a");
        assertThat(CpuFigures.shown(figures.databasePer10k())).isEqualTo("0.55");
    }

    @Test
    void aMeterWithoutProcSaysNotApplicableButStillReadsTheJvm() throws InterruptedException {
        CpuMeter meter = new CpuMeter(proc.resolve("missing"), Optional.empty(), Optional.empty(), true, "none");
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

    private void stat(long pid, long ppid, long utime, long stime, long cutime, long cstime) throws IOException {
        Path dir = Files.createDirectories(proc.resolve(Long.toString(pid)));
        Files.writeString(dir.resolve("stat"), pid + " (p" + pid + ") S " + ppid + " 1 1 0 -1 0 0 0 0 0 " + utime + " "
                + stime + " " + cutime + " " + cstime + " 20 0 1 0 1 1 1\n");
    }
}
