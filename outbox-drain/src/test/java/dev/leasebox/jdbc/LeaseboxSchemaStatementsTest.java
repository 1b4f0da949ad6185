package dev.leasebox.jdbc;

import org.junit.jupiter.api.Test;
import dev.leasebox.jdbc.store.PostgreSqlCommitListener;

import static org.assertj.core.api.Assertions.assertThat;

class LeaseboxSchemaStatementsTest {

    @Test
    void aDollarQuotedBodyStaysOneStatementWhateverItsLinesEndWith() {
        String script = """
                -- a comment;
                CREATE FUNCTION f() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    PERFORM pg_notify('c', '');
                    RETURN NULL;
                END
                $$;

                CREATE TRIGGER t AFTER INSERT ON x
                    FOR EACH STATEMENT EXECUTE FUNCTION f();
                """;
        assertThat(LeaseboxSchema.statements(script)).hasSize(2).first().asString()
                .startsWith("CREATE FUNCTION").contains("RETURN NULL;").endsWith("$$");
    }

    @Test
    void thePostgreSqlV7ScriptIsAFunctionAndATrigger() {
        LeaseboxSchema.Migration v7 = new LeaseboxSchema(DatabaseKind.POSTGRESQL, TableName.parse("s.orders"))
                .migrations().get(6);
        assertThat(v7.version()).isEqualTo(7);
        assertThat(LeaseboxSchema.statements(v7.sql())).satisfiesExactly(
                function -> assertThat(function).startsWith("CREATE FUNCTION s.orders_wake_up()"),
                trigger -> assertThat(trigger).startsWith("CREATE CONSTRAINT TRIGGER orders_wake_up AFTER INSERT ON s.orders"));
        for (DatabaseKind kind : new DatabaseKind[]{DatabaseKind.MARIADB, DatabaseKind.H2}) {
            assertThat(LeaseboxSchema.statements(new LeaseboxSchema(kind, TableName.DEFAULT).migrations()
                    .get(6).sql())).as("V7 on %s", kind).isEmpty();
        }
    }

    @Test
    void theV8ScriptAddsTheCountOfTakeoversToTheRegistryOnEveryDatabase() {
        for (DatabaseKind kind : DatabaseKind.values()) {
            LeaseboxSchema.Migration v8 = new LeaseboxSchema(kind, TableName.parse("s.orders")).migrations().get(7);
            assertThat(v8.version()).isEqualTo(8);
            assertThat(LeaseboxSchema.statements(v8.sql())).as("V8 on %s", kind).singleElement().asString()
                    .startsWith("ALTER TABLE s.orders_claim_styles ADD COLUMN").contains("taken_over");
        }
    }

    @Test
    void channelsAreNamedAfterTheTableAndHashedPastSixtyThreeBytes() {
        assertThat(PostgreSqlCommitListener.channel("public", "leasebox_outbox")).isEqualTo("leasebox:public.leasebox_outbox");
        String schema = "s".repeat(40);
        String table = "t".repeat(40);
        String hashed = PostgreSqlCommitListener.channel(schema, table);
        assertThat(hashed).startsWith("leasebox:").hasSize("leasebox:".length() + 32)
                .isNotEqualTo(PostgreSqlCommitListener.channel(schema, "u".repeat(40)));
        assertThat(PostgreSqlCommitListener.quoted("a\"b")).isEqualTo("\"a\"\"b\"");
    }
}
