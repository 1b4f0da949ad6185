package dev.leasebox.cli;

import com.zaxxer.hikari.HikariDataSource;
import dev.leasebox.jdbc.DatabaseKind;
import dev.leasebox.jdbc.LeaseboxSchema;
import dev.leasebox.jdbc.MariaDbTestServer;
import dev.leasebox.jdbc.PostgreSqlTestServer;
import dev.leasebox.jdbc.TableName;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code leasebox schema --apply} on the real MariaDB after an apply that was interrupted inside V3 (its
 * first statement, the lease_slot column, committed on its own) and then continued with V4 and V5 by a
 * version that trusted that column: the next apply completes V3 and applies V6, the one after reports
 * the table up to date.
 */
class SchemaCommandMariaDbIT {

    private HikariDataSource admin;
    private String database;
    private String url;

    @BeforeEach
    void freshDatabase() {
        admin = MariaDbTestServer.dataSource(1);
        database = MariaDbTestServer.newDatabase(admin);
        url = MariaDbTestServer.jdbcUrlFor(database);
    }

    @AfterEach
    void dropDatabase() {
        MariaDbTestServer.dropDatabase(admin, database);
        admin.close();
    }

    @Test
    void anApplyInterruptedInsideV3IsCompletedByTheNextApplyNotReportedUpToDate() {
        LeaseboxSchema schema = new LeaseboxSchema(DatabaseKind.MARIADB, new TableName(database, "leasebox_outbox"));
        schema.apply(admin, 1, 2);
        String v3 = schema.migrations().get(2).sql().replaceAll("(?m)^--.*\\n", "");
        PostgreSqlTestServer.execute(admin, v3.substring(0, v3.indexOf(";\n")));
        schema.apply(admin, 4, 5);

        CliRun apply = CliRun.of("schema", "--apply", "--jdbc-url", url);
        assertThat(apply.exitCode()).isZero();
        assertThat(apply.out()).contains("Applied V3__add_lease_slots.sql").contains("Applied V6__keys_compare_as_bytes.sql")
                .doesNotContain("up to date");
        CliRun again = CliRun.of("schema", "--apply", "--jdbc-url", url);
        assertThat(again.out()).contains("is up to date (V1 to V" + LeaseboxSchema.LATEST_VERSION + " applied)");
    }
}
