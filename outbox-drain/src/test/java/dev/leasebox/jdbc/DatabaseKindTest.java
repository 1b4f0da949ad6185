package dev.leasebox.jdbc;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The database kind a JDBC URL names, and the one line an unsupported URL gets. */
class DatabaseKindTest {

    @Test
    void theSupportedUrlPrefixesNameTheirKind() {
        assertThat(DatabaseKind.ofJdbcUrl("jdbc:postgresql://127.0.0.1:5432/app")).isEqualTo(DatabaseKind.POSTGRESQL);
        assertThat(DatabaseKind.ofJdbcUrl("jdbc:mariadb://127.0.0.1:3306/app?user=app")).isEqualTo(DatabaseKind.MARIADB);
        assertThat(DatabaseKind.ofJdbcUrl("jdbc:mysql://127.0.0.1:3306/app")).isEqualTo(DatabaseKind.MARIADB);
        assertThat(DatabaseKind.ofJdbcUrl("jdbc:h2:mem:x")).isEqualTo(DatabaseKind.H2);
    }

    @Test
    void anUnsupportedUrlSaysWhichDatabasesAreSupportedWithoutItsPassword() {
        assertThatThrownBy(() -> DatabaseKind.ofJdbcUrl("jdbc:oracle:thin:scott/tiger@//db:1521/app?password=secret"))
                .isInstanceOf(JdbcOutboxException.class)
                .hasMessageContaining("Unsupported outbox database URL jdbc:oracle:thin:")
                .hasMessageContaining("PostgreSQL (jdbc:postgresql:)").hasMessageContaining("MariaDB 10.6+ (jdbc:mariadb:")
                .hasMessageContaining("H2 (jdbc:h2:)").hasMessageNotContaining("secret");
    }

    @Test
    void eachKindHasItsScriptFolder() {
        assertThat(LeaseboxSchema.resourcePath(DatabaseKind.MARIADB, LeaseboxSchema.V1_FILE))
                .isEqualTo("db/leasebox/mariadb/V1__create_leasebox_outbox.sql");
        for (DatabaseKind kind : DatabaseKind.values()) {
            assertThat(new LeaseboxSchema(kind, TableName.DEFAULT).migrations()).hasSize(LeaseboxSchema.LATEST_VERSION);
        }
    }
}
