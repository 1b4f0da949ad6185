package dev.leasebox.spring;

import dev.leasebox.jdbc.LeaseboxSchema;
import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseManager;
import dev.leasebox.lease.LeaseRequest;
import org.springframework.boot.actuate.health.AbstractHealthIndicator;
import org.springframework.boot.actuate.health.Health;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The {@code leasebox} health component. DOWN when the drain is not running, when the coordinator does not
 * answer (a lease on a probe key is acquired and released: one round trip each), when the outbox table
 * lacks a migration the drain needs (V1 to V5), or when the oldest entry waiting for delivery is older
 * than {@code leasebox.health.oldest-pending-threshold}. Details: table, schema version, coordinator,
 * backlog and oldest pending age.
 */
public class LeaseboxHealthIndicator extends AbstractHealthIndicator {

    private final LeaseboxDrain drain;
    private final OutboxTableReport report;
    private final Duration threshold;
    private final Clock clock;

    public LeaseboxHealthIndicator(LeaseboxDrain drain, OutboxTableReport report, Duration threshold, Clock clock) {
        super("Leasebox health check failed");
        this.drain = drain;
        this.report = report;
        this.threshold = threshold;
        this.clock = clock;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) throws Exception {
        boolean up = drain.isRunning();
        builder.withDetail("table", report.table().qualified()).withDetail("running", drain.isRunning());
        drain.stoppedBecause().ifPresent(why -> builder.withDetail("stoppedBecause", why));

        int version = report.schemaVersion();
        builder.withDetail("schemaVersion", version).withDetail("schemaVersionNeeded", LeaseboxSchema.LATEST_VERSION);
        if (version < LeaseboxSchema.LATEST_VERSION) {
            up = false;
            builder.withDetail("schema", version == 0 ? "the table does not exist"
                    : "apply V" + (version + 1) + " to V" + LeaseboxSchema.LATEST_VERSION + " (db/leasebox/<database>/)");
        }

        Optional<LeaseManager> manager = drain.coordinator();
        if (manager.isPresent()) {
            builder.withDetail("coordinator", manager.get().describe());
            try {
                probe(manager.get());
                builder.withDetail("coordinatorReachable", true);
            } catch (RuntimeException e) {
                up = false;
                builder.withDetail("coordinatorReachable", false).withDetail("coordinatorError", String.valueOf(e.getMessage()));
            }
        } else {
            builder.withDetail("coordinator", "database");
        }

        Instant now = clock.instant();
        builder.withDetail("backlog", report.backlog(now));
        Optional<Instant> oldest = report.oldestPendingCreatedAt();
        Duration age = oldest.map(t -> Duration.between(t, now)).filter(d -> !d.isNegative()).orElse(Duration.ZERO);
        builder.withDetail("oldestPendingAge", age.toString()).withDetail("oldestPendingThreshold", threshold.toString());
        if (age.compareTo(threshold) > 0) {
            up = false;
        }
        if (up) {
            builder.up();
        } else {
            builder.down();
        }
    }

    private void probe(LeaseManager manager) {
        String owner = drain.settings().options().owner();
        Duration ttl = drain.settings().options().leaseDuration();
        List<Lease> granted = manager.acquire(new LeaseRequest(List.of("health-probe:" + owner), owner, ttl));
        if (!granted.isEmpty()) {
            manager.release(granted);
        }
    }
}
