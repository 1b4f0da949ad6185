package example.springboot;

import dev.leasebox.jdbc.TableName;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

import javax.sql.DataSource;

/**
 * Creates the orders table when {@code example.create-schema=true}, while the context is built. The outbox
 * table's migrations are the starter's ({@code leasebox.schema.apply=true}, applied when the drain starts). A
 * real service leaves both to its migration tool.
 */
@Component
public class ExampleSchema {

    public ExampleSchema(ExampleProperties properties, DataSource dataSource) {
        if (!properties.createSchema()) {
            return;
        }
        TableName orders = TableName.parse(properties.ordersTable());
        new JdbcTemplate(dataSource).execute("CREATE TABLE IF NOT EXISTS " + orders.qualified()
                + " (id text PRIMARY KEY, customer text NOT NULL, amount_cents bigint NOT NULL)");
    }
}
