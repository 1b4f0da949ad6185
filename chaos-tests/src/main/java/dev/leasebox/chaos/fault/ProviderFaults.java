package dev.leasebox.chaos.fault;

import dev.leasebox.chaos.harness.ChaosCluster;
import dev.leasebox.chaos.harness.Poll;
import dev.leasebox.chaos.history.FaultEvent;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;

/**
 * A failing and slow downstream: through the workers' provider control file, 30% of emissions are
 * refused like an HTTP 503 and 5% time out after delivering (outcome unknown), for most of the
 * window; then healthy again. Forces retries (with backoff) and dead letters after max attempts;
 * nothing may be lost, and every DELIVERED entry must be in the inbox.
 */
public final class ProviderFaults implements FaultInjector {

    @Override
    public void inject(ChaosCluster cluster, Duration window) {
        if (!FaultInjector.awaitHolding(cluster.victim(), window)) {
            return;
        }
        write(cluster.providerControl(), "errorRate=0.30\ntimeoutRate=0.05\ntimeoutMillis=300\nslowMillis=2\n");
        cluster.faults().record(FaultEvent.PROVIDER_FAULTS, "provider", "30% 503 errors, 5% timeouts after delivery (300 ms)");
        Poll.until(() -> false, Duration.ofMillis(100), window.multipliedBy(2).dividedBy(3));
        heal(cluster);
    }

    @Override
    public void heal(ChaosCluster cluster) {
        if (Files.exists(cluster.providerControl())) {
            write(cluster.providerControl(), "slowMillis=1\n");
            cluster.faults().record(FaultEvent.PROVIDER_HEALTHY, "provider", "errors and timeouts off");
        }
    }

    static void write(Path control, String settings) {
        try {
            Path tmp = control.resolveSibling(control.getFileName() + ".tmp");
            Files.writeString(tmp, settings);
            Files.move(tmp, control, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the provider control file " + control + ": " + e.getMessage(), e);
        }
    }
}
