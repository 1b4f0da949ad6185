package dev.leasebox.spring;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Prints a {@link LeaseboxConfigurationException} as the start's one failure, with the property to fix. */
class LeaseboxFailureAnalyzer extends AbstractFailureAnalyzer<LeaseboxConfigurationException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, LeaseboxConfigurationException cause) {
        return new FailureAnalysis(cause.getMessage(),
                "Fix the leasebox.* property named above (every property is listed in docs/guide/spring-boot.md#properties), "
                        + "or set leasebox.enabled=false.", cause);
    }
}
