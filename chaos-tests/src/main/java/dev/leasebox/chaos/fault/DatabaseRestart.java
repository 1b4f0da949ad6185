package dev.leasebox.chaos.fault;

import dev.leasebox.chaos.harness.ChaosCluster;
import dev.leasebox.chaos.harness.LocalPostgres;
import dev.leasebox.chaos.harness.WorkerProcess;

import java.time.Duration;

/**
 * The outbox's PostgreSQL (a server the harness started for this run, {@link LocalPostgres}) stopped by an
 * immediate shutdown while the victim holds claims, down for {@link #DOWNTIME}, and started again on the same
 * port; every worker must then complete entries again by itself, none is restarted.
 */
public final class DatabaseRestart implements FaultInjector {

    /** Longer than nothing, shorter than the lease: claims in flight outlive the outage on the row's clock. */
    static final Duration DOWNTIME = Duration.ofSeconds(2);

    @Override
    public void inject(ChaosCluster cluster, Duration window) {
        LocalPostgres server = cluster.databaseServer().orElseThrow(() -> new IllegalStateException(
                "db-restart needs a PostgreSQL the harness started (the scenario asks for one)"));
        WorkerProcess victim = cluster.victim();
        if (!FaultInjector.awaitHolding(victim, window)) {
            return;
        }
        long since = System.currentTimeMillis();
        server.restart(cluster.faults(), DOWNTIME);
        DatabaseFaults.awaitRecovered(cluster, since, "the database restarted");
    }
}
