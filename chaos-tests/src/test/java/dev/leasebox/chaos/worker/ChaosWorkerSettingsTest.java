package dev.leasebox.chaos.worker;

import dev.leasebox.LeaseboxSettings;
import dev.leasebox.chaos.harness.Granularity;
import dev.leasebox.claim.ClaimMode;
import dev.leasebox.claim.ReleaseAfterCompletion;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A chaos worker reads the harness's flags into the library's settings, as leasebox worker does. */
class ChaosWorkerSettingsTest {

    private static LeaseboxSettings settings(Granularity granularity, String... flags) {
        List<String> args = new ArrayList<>(List.of("--jdbc-url", "jdbc:postgresql://127.0.0.1/test", "--history", "h.jsonl"));
        args.addAll(List.of(flags));
        args.addAll(granularity.workerArgs());
        ChaosWorkerMain worker = new ChaosWorkerMain();
        new CommandLine(worker).parseArgs(args.toArray(String[]::new));
        return worker.settings();
    }

    @Test
    void theHarnessFlagsAndTheChaosDefaultsMakeTheSettings() {
        LeaseboxSettings s = settings(Granularity.LEAN_ROWS.withRelease("non-terminal", true), "--backend", "redis",
                "--redis", "redis://127.0.0.1:6379", "--owner", "w1", "--lease-ttl", "3000ms", "--batch", "7",
                "--backend-option", "row-groups=0");
        assertThat(s.backend()).contains("redis");
        assertThat(s.address()).isEqualTo("redis://127.0.0.1:6379");
        assertThat(s.namespace()).isEqualTo("leasebox-chaos");
        assertThat(s.options().owner()).isEqualTo("w1");
        assertThat(s.options().leaseDuration()).isEqualTo(Duration.ofSeconds(3));
        assertThat(s.options().batchSize()).isEqualTo(7);
        assertThat(s.options().concurrency()).isEqualTo(2);
        assertThat(s.options().maxBackoff()).isEqualTo(Duration.ofMillis(400));
        assertThat(s.options().shutdownTimeout()).isEqualTo(Duration.ofSeconds(3));
        assertThat(s.claimMode()).contains(ClaimMode.LEAN);
        assertThat(s.releaseAfterCompletion()).isEqualTo(ReleaseAfterCompletion.NON_TERMINAL);
        assertThat(s.releaseInBackground()).isTrue();
        assertThat(s.backendOptions()).containsEntry("row-groups", "0");
    }

    @Test
    void partitionLeasesTakeTheirClaimModeFromTheOneKey() {
        LeaseboxSettings s = settings(Granularity.partition(true, "recorded"), "--backend", "database", "--owner", "w1");
        assertThat(s.granularity()).isEqualTo(dev.leasebox.claim.Granularity.PARTITION);
        assertThat(s.claimMode()).contains(ClaimMode.RECORDED);
        assertThat(s.ordered()).isTrue();
    }

    @Test
    void aFlagTheSettingsRefuseIsNamedAsWritten() {
        assertThatThrownBy(() -> settings(Granularity.LEAN_ROWS, "--backend", "database", "--owner", "w1"))
                .hasMessageStartingWith("--claim-mode lean needs leases from a coordinator");
        assertThatThrownBy(() -> settings(Granularity.ROW, "--backend", "redis", "--owner", "w1"))
                .hasMessageStartingWith("--backend redis needs --redis");
        assertThatThrownBy(() -> settings(Granularity.ROW, "--owner", "w1")).hasMessageStartingWith("--backend is required");
        assertThatThrownBy(() -> settings(Granularity.ROW, "--backend", "database", "--lease-ms", "3000"))
                .hasMessageStartingWith("unknown setting 'lease-ms'");
    }
}
