package dev.leasebox.spring;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * The {@code leasebox} health component on Spring Boot 4: {@link LeaseboxHealthCheck} (what makes it DOWN,
 * which details it gives) in Boot 4's health API. Spring Boot 3.5 gets the same check through
 * {@code LeaseboxBoot3HealthIndicator}.
 */
public class LeaseboxHealthIndicator extends AbstractHealthIndicator {

    private final LeaseboxHealthCheck check;

    public LeaseboxHealthIndicator(LeaseboxHealthCheck check) {
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
