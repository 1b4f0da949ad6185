package dev.leasebox.dist;

import dev.leasebox.cli.LeaseboxMain;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;

import static org.assertj.core.api.Assertions.assertThat;

/** README's first command: the demo runs with no server, kills a worker and every invariant holds. */
class DemoRunsIT {

    @Test
    void theDemoKillsAWorkerAndItsEntriesAreReclaimedWithHigherFences() {
        CommandLine commandLine = LeaseboxMain.commandLine();
        StringWriter out = new StringWriter();
        commandLine.setOut(new PrintWriter(out, true));
        int exit = commandLine.execute("demo", "--entries", "3000", "--lease-ttl", "3s");
        String printed = out.toString();
        assertThat(exit).as(printed).isZero();
        assertThat(printed).contains(">>> killed worker-2").contains("Entries DELIVERED:              3,000 of 3,000")
                .containsPattern("reclaimed by other workers with a higher fence: [1-9]")
                .contains("Every invariant held");
    }
}
