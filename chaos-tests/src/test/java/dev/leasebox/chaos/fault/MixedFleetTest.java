package dev.leasebox.chaos.fault;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class MixedFleetTest {

    @Test
    void theRefusalIsFoundInTheWorkersLogFromItsSentenceOn() {
        String log = "05:50:01.100 INFO  [main] d.l.c.w.ChaosWorkerMain - starting\n"
                + "05:50:02.200 ERROR [main] d.l.c.w.ChaosWorkerMain - leasebox chaos worker: Worker x1 cannot claim from "
                + "s.leasebox_outbox with lean partition claims: 2 live worker(s) of that table claim with recorded claims\n"
                + "\tat dev.leasebox.jdbc.lease.ClaimStyleRegistry.join(ClaimStyleRegistry.java:120)";

        assertThat(MixedFleet.refusalLine(log)).isEqualTo("Worker x1 cannot claim from s.leasebox_outbox with lean "
                + "partition claims: 2 live worker(s) of that table claim with recorded claims");
        assertThat(MixedFleet.refusalLine("05:50:02.200 ERROR [main] x - connection refused")).isEmpty();
    }
}
