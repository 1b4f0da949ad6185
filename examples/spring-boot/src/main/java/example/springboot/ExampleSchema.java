package example.springboot;

import dev.leasebox.jdbc.DatabaseKind;
import dev.leasebox.jdbc.LeaseboxSchema;
import dev.leasebox.jdbc.TableName;
import dev.leasebox.spring.OutboxTableReport;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

import javax.sql.DataSource;
import java.sql.SQLException;

/**
 * Creates the example's tables when {@code example.create-schema=true}, while the context is built: before the
 * drain starts. A real service leaves this to its migration tool.
 */
@Component
public class ExampleSchema {

    public ExampleSchema(ExampleProperties properties, DataSource dataSource, OutboxTableReport outbox) throws SQLException {
        if (!properties.createSchema()) {
            return;
        }
        TableName orders = TableName.parse(properties.ordersTable());
        new JdbcTemplate(dataSource).execute("CREATE TABLE IF NOT EXISTS " + orders.qualified()
                + " (id text PRIMARY KEY, customer text NOT NULL, amount_cents bigint NOT NULL)");
        int version = outbox.schemaVersion();
        if (version < LeaseboxSchema.LATEST_VERSION) {
            new LeaseboxSchema(DatabaseKind.POSTGRESQL, outbox.table()).apply(dataSource, version + 1, LeaseboxSchema.LATEST_VERSION);
        }
    }
}
