package dev.leasebox.spring;

import dev.leasebox.lease.spi.ClientVersionException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.Ordered;

/**
 * Prints a client library that a backend or provider cannot run with (Jedis, Hazelcast, kafka-clients, at the
 * version Spring Boot's dependency management chose) as the one line its module wrote and the property to pin.
 * It comes before {@link LeaseboxFailureAnalyzer}, which would otherwise report the {@code leasebox.*} property
 * that opened the backend.
 */
class LeaseboxClientVersionFailureAnalyzer extends AbstractFailureAnalyzer<ClientVersionException> implements Ordered {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, ClientVersionException cause) {
        String property = cause.pinProperty();
        String version = cause.pinVersion();
        return new FailureAnalysis(cause.getMessage(),
                "Pin " + cause.library() + " " + version + ": set <" + property + ">" + version + "</" + property
                        + "> in the <properties> of your pom.xml (Gradle: ext['" + property + "'] = '" + version
                        + "'); Spring Boot's dependency management reads that property. The Boot lines Leasebox supports "
                        + "and the pins each needs: docs/backends.md#client-versions.",
                cause);
    }

    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE;
    }
}
