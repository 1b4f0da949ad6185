package example.springboot;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The example's own settings.
 *
 * @param ordersTable  the business table
 * @param createSchema create the orders table and the outbox table (V1 to V5) at start when missing
 */
@ConfigurationProperties(prefix = "example")
public record ExampleProperties(String ordersTable, boolean createSchema) {
}
