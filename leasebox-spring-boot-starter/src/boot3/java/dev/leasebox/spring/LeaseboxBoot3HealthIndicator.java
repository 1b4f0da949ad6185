package dev.leasebox.spring;

import org.springframework.boot.actuate.health.AbstractHealthIndicator;
import org.springframework.boot.actuate.health.Health;

/**
 * The {@code leasebox} health component on Spring Boot 3.5: {@link LeaseboxHealthCheck} in Boot 3.5's health
 * API. Compiled against Boot 3.5's Actuator jars (src/boot3/java), into the same jar as the rest of the
 * starter, which is compiled against Boot 4.
 */
public class LeaseboxBoot3HealthIndicator extends AbstractHealthIndicator {

    private final LeaseboxHealthCheck check;

    public LeaseboxBoot3HealthIndicator(LeaseboxHealthCheck check) {
        super("Leasebox health check failed");
        this.check = check;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) throws Exception {
        LeaseboxHealthCheck.Result result = check.check();
        builder.withDetails(result.details());
        if (result.up()) {
            builder.up();
        } else {
            builder.down();
        }
    }
}
