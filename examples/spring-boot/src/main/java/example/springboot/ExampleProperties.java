package example.springboot;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The example's own settings.
 *
 * @param ordersTable  the business table
 * @param createSchema create the orders table at start when missing
 */
@ConfigurationProperties(prefix = "example")
public record ExampleProperties(String ordersTable, boolean createSchema) {
}
