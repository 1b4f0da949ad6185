package dev.leasebox.spring;

import dev.leasebox.jdbc.LeaseboxSchema;
import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseManager;
import dev.leasebox.lease.LeaseRequest;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What the {@code leasebox} health component reports, apart from Spring Boot's health API, which Boot 4
 * moved to another module and package: {@link LeaseboxHealthIndicator} (Boot 4) and the Boot 3.5 indicator
 * both turn one {@link #check()} into their line's {@code Health}.
 *
 * <p>DOWN when the drain is not running, when the coordinator does not answer (a lease on a probe key is
 * acquired and released: one round trip each), when the outbox table lacks a migration (V1 to
 * {@link LeaseboxSchema#LATEST_VERSION}: the start refuses such a table, so this reports one that lost an
 * object since), or when the oldest entry waiting for delivery is older than
 * {@code leasebox.health.oldest-pending-threshold}. Details: table, schema version, coordinator, backlog and
 * oldest pending age.
 */
public class LeaseboxHealthCheck {

    /** The outcome: UP or DOWN, and the details in the order they are shown. */
    public record Result(boolean up, Map<String, Object> details) {
        public Result {
            details = Collections.unmodifiableMap(new LinkedHashMap<>(details));
        }
    }

    private final LeaseboxDrain drain;
    private final OutboxTableReport report;
    private final Duration threshold;
    private final Clock clock;

    public LeaseboxHealthCheck(LeaseboxDrain drain, OutboxTableReport report, Duration threshold, Clock clock) {
        this.drain = drain;
        this.report = report;
        this.threshold = threshold;
        this.clock = clock;
    }

    /** Reads the table and probes the coordinator; a failure to read the table is thrown (the indicator is DOWN with it). */
    public Result check() throws Exception {
        Map<String, Object> details = new LinkedHashMap<>();
        boolean up = drain.isRunning();
        details.put("table", report.table().qualified());
        details.put("running", drain.isRunning());
        drain.stoppedBecause().ifPresent(why -> details.put("stoppedBecause", why));

        int version = report.schemaVersion();
        details.put("schemaVersion", version);
        details.put("schemaVersionNeeded", LeaseboxSchema.LATEST_VERSION);
        if (version < LeaseboxSchema.LATEST_VERSION) {
            up = false;
            details.put("schema", version == 0 ? "the table does not exist"
                    : "apply V" + (version + 1) + " to V" + LeaseboxSchema.LATEST_VERSION + " (db/leasebox/<database>/)");
        }

        Optional<LeaseManager> manager = drain.coordinator();
        if (manager.isPresent()) {
            details.put("coordinator", manager.get().describe());
            try {
                probe(manager.get());
                details.put("coordinatorReachable", true);
            } catch (RuntimeException e) {
                up = false;
                details.put("coordinatorReachable", false);
                details.put("coordinatorError", String.valueOf(e.getMessage()));
            }
        } else {
            details.put("coordinator", "database");
        }

        Instant now = clock.instant();
        details.put("backlog", report.backlog(now));
        Optional<Instant> oldest = report.oldestPendingCreatedAt();
        Duration age = oldest.map(t -> Duration.between(t, now)).filter(d -> !d.isNegative()).orElse(Duration.ZERO);
        details.put("oldestPendingAge", age.toString());
        details.put("oldestPendingThreshold", threshold.toString());
        if (age.compareTo(threshold) > 0) {
            up = false;
        }
        return new Result(up, details);
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
