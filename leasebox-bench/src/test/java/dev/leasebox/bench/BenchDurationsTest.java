package dev.leasebox.bench;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;

import static org.assertj.core.api.Assertions.assertThat;

/** The bench's durations take the syntax of every other duration option, and bare seconds as before. */
class BenchDurationsTest {

    @Test
    void windowWarmUpAndLeaseTtlTakeDurationsAndBareSeconds() {
        BenchCommand bench = new BenchCommand();
        new CommandLine(bench).parseArgs("--seconds", "1m30s", "--warmup", "0s", "--lease-ttl", "PT5S");
        assertThat(bench.seconds).isEqualTo(90);
        assertThat(bench.warmup).isZero();
        assertThat(bench.leaseTtlSeconds).isEqualTo(5);

        BenchCommand bare = new BenchCommand();
        new CommandLine(bare).parseArgs("--seconds", "10", "--lease-ttl", "9");
        assertThat(bare.seconds).isEqualTo(10);
        assertThat(bare.leaseTtlSeconds).isEqualTo(9);
    }

    @Test
    void aDurationThatIsNoWholeNumberOfSecondsIsRefusedNamingTheOption() {
        StringWriter err = new StringWriter();
        CommandLine command = new CommandLine(new BenchCommand()).setErr(new PrintWriter(err));
        int exit = command.execute("--seconds", "1500ms");
        assertThat(exit).isEqualTo(2);
        assertThat(err.toString()).contains("--seconds").contains("'1500ms' is not a whole number of seconds");
    }
}
