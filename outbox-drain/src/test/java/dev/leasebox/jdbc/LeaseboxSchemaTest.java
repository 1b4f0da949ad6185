package dev.leasebox.jdbc;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LeaseboxSchemaTest {

    @Test
    void printedScriptsNameTheTableInStatementsAndKeepThePlaceholdersInTheirComments() {
        for (DatabaseKind kind : DatabaseKind.values()) {
            LeaseboxSchema schema = new LeaseboxSchema(kind, TableName.parse("orders_outbox"));
            String v1 = schema.migrations().get(0).sql();
            assertThat(v1).as(kind.folder()).contains("CREATE TABLE orders_outbox (")
                    .doesNotContain("orders_outbox is the").doesNotContain("orders_outbox_name");
            assertThat(v1.lines().filter(line -> !line.stripLeading().startsWith("--")))
                    .as(kind.folder() + ": statements without placeholders").noneMatch(line -> line.contains("${"));
        }
    }

    @Test
    void theDropStatementsRemoveCompanionsFirstThenTheTableThenTheSequences() {
        assertThat(new LeaseboxSchema(DatabaseKind.POSTGRESQL, TableName.parse("app.orders_outbox")).dropStatements()).containsExactly(
                "DROP TABLE IF EXISTS app.orders_outbox_workers;",
                "DROP TABLE IF EXISTS app.orders_outbox_leases;",
                "DROP TABLE IF EXISTS app.orders_outbox_lease_slots;",
                "DROP TABLE IF EXISTS app.orders_outbox_claim_styles;",
                "DROP TABLE IF EXISTS app.orders_outbox;",
                "DROP SEQUENCE IF EXISTS app.orders_outbox_claim_token_seq;",
                "DROP SEQUENCE IF EXISTS app.orders_outbox_lease_fence_seq;",
                "DROP FUNCTION IF EXISTS app.orders_outbox_wake_up();");
    }

    @Test
    void aSchemaWithoutADatabaseHasNoScriptsToPrintAndSaysHowToGetThem() {
        assertThatThrownBy(() -> new LeaseboxSchema(TableName.parse("orders_outbox")).migrations())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("depend on the database").hasMessageContaining("new LeaseboxSchema(DatabaseKind.");
    }
}
