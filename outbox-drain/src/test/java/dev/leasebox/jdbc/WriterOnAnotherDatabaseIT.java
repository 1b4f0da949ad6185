package dev.leasebox.jdbc;

import dev.leasebox.jdbc.dialect.SqlDialect;
import dev.leasebox.outbox.OutboxEntry;
import dev.leasebox.outbox.OutboxMessage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import javax.sql.DataSource;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Writers and schemas take the database from the connection, on real PostgreSQL and MariaDB servers: a writer
 * whose first SQL was another database's (a store's writer, built where the drain runs) writes with the
 * connection's and reports the row it committed; a schema built for another database refuses before any
 * statement.
 */
class WriterOnAnotherDatabaseIT {

    @RegisterExtension
    static final PostgreSqlSchema PG = new PostgreSqlSchema(2);
    @RegisterExtension
    static final MariaDbDatabase MARIA = new MariaDbDatabase(2);

    @ParameterizedTest
    @EnumSource(DatabaseKind.class)
    void aWriterBuiltForAnyDatabaseReportsTheRowItCommitsOnPostgreSql(DatabaseKind builtFor) throws Exception {
        TableName table = new TableName(PG.name(), "w_" + builtFor.folder());
        new LeaseboxSchema(table).applyAll(PG.ds());
        writesAndReports(PG.ds(), table, builtFor);
    }

    @ParameterizedTest
    @EnumSource(DatabaseKind.class)
    void aWriterBuiltForAnyDatabaseReportsTheRowItCommitsOnMariaDb(DatabaseKind builtFor) throws Exception {
        TableName table = new TableName(MARIA.name(), "w_" + builtFor.folder());
        new LeaseboxSchema(table).applyAll(MARIA.ds());
        writesAndReports(MARIA.ds(), table, builtFor);
    }

    @Test
    void aSchemaForMariaDbRefusesPostgreSqlBeforeAnyStatement() throws Exception {
        TableName table = new TableName(PG.name(), "refused_here");
        assertThatThrownBy(() -> new LeaseboxSchema(DatabaseKind.MARIADB, table).applyAll(PG.ds()))
                .isInstanceOf(JdbcOutboxException.class)
                .hasMessageContaining("MARIADB scripts").hasMessageContaining("cannot be applied to POSTGRESQL")
                .hasMessageContaining("new LeaseboxSchema(table)");
        assertThat(SchemaVersion.applied(PG.ds(), table)).as("nothing created").isZero();
    }

    @Test
    void aSchemaForPostgreSqlRefusesMariaDbBeforeAnyStatement() throws Exception {
        TableName table = new TableName(MARIA.name(), "refused_here");
        assertThatThrownBy(() -> new LeaseboxSchema(DatabaseKind.POSTGRESQL, table).migrate(MARIA.ds()))
                .isInstanceOf(JdbcOutboxException.class)
                .hasMessageContaining("POSTGRESQL scripts").hasMessageContaining("cannot be applied to MARIADB");
        assertThat(SchemaVersion.applied(MARIA.ds(), table)).as("nothing created").isZero();
    }

    /** The store's writer for {@code builtFor}, used on {@code ds}: the entry it returns is the one row it committed. */
    private static void writesAndReports(DataSource ds, TableName table, DatabaseKind builtFor) throws Exception {
        OutboxWriter writer = new OutboxWriter(SqlDialect.of(builtFor, table), Clock.systemUTC());
        OutboxEntry entry = writer.enqueue(ds, OutboxMessage.of("t", "x".getBytes(StandardCharsets.UTF_8))
                .withIdempotencyKey("built-for-" + builtFor.folder()));
        List<Long> ids = new ArrayList<>();
        try (Connection c = ds.getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT id FROM " + table.qualified())) {
            while (rs.next()) {
                ids.add(rs.getLong(1));
            }
        }
        assertThat(ids).containsExactly(entry.id());
        assertThat(entry.idempotencyKey()).isEqualTo("built-for-" + builtFor.folder());
    }
}
