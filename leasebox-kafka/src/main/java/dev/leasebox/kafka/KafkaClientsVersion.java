package dev.leasebox.kafka;

import dev.leasebox.lease.spi.ClientVersionException;

/**
 * Refuses a kafka-clients older than 3.1, whose admin client lacks {@code DescribeTopicsResult.allTopicNames()}
 * (the topic check of {@link KafkaOutcomes}), in one line that says which version to pin. The application's
 * dependency management picks kafka-clients (Spring Boot 3.5 manages 3.9, 4.0 manages 4.1, 4.1 manages 4.2:
 * all pass); an older pin would otherwise fail at the first missing topic with a bare {@code NoSuchMethodError}.
 */
final class KafkaClientsVersion {

    /** The kafka-clients leasebox-kafka is built and tested with. */
    static final String BUILT_WITH = "4.3.1";

    private static final String DESCRIBE_TOPICS_RESULT = "org.apache.kafka.clients.admin.DescribeTopicsResult";

    private KafkaClientsVersion() {
    }

    /** @throws ClientVersionException naming the kafka-clients found and the version to pin, when it is older than 3.1 */
    static void requireSupported(ClassLoader loader) {
        try {
            Class.forName(DESCRIBE_TOPICS_RESULT, false, loader).getMethod("allTopicNames");
        } catch (ClassNotFoundException | NoSuchMethodException | LinkageError e) {
            String found = found(loader);
            throw new ClientVersionException("leasebox-kafka needs kafka-clients 3.1 or later (built with "
                    + "org.apache.kafka:kafka-clients " + BUILT_WITH + "), but the class path has kafka-clients " + found
                    + ": pin kafka-clients " + BUILT_WITH + " (Spring Boot's dependency management picks it: set the "
                    + "property kafka.version=" + BUILT_WITH + " in your Maven <properties> or Gradle ext)",
                    "org.apache.kafka:kafka-clients", found, "kafka.version", BUILT_WITH);
        }
    }

    /** The version kafka-clients' jar declares, or "older than 3.1" when it declares none. */
    static String found(ClassLoader loader) {
        return ClientVersionException.declaredVersion(loader, "kafka/kafka-version.properties", "older than 3.1");
    }
}
