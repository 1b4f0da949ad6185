package dev.leasebox.console;

import dev.leasebox.jdbc.DatabaseKind;
import dev.leasebox.jdbc.LeaseboxSchema;
import dev.leasebox.jdbc.OutboxWriter;
import dev.leasebox.jdbc.TableName;
import dev.leasebox.outbox.OutboxMessage;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/** The handler's routes, guards and escaping on an in-memory H2 outbox, without a server. */
class ConsoleH2Test {

    private static final String HOST = "127.0.0.1:8089";

    private final JdbcDataSource dataSource = new JdbcDataSource();
    private final TableName table = TableName.parse("outbox");
    private ConsoleSampler sampler;
    private Console console;
    private long deadLetter;

    @BeforeEach
    void outboxWithADeadLetter() throws Exception {
        dataSource.setURL("jdbc:h2:mem:console-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
        new LeaseboxSchema(DatabaseKind.H2, table).applyAll(dataSource);
        deadLetter = OutboxWriter.of(table, Clock.systemUTC()).enqueue(dataSource,
                OutboxMessage.of("order", "{}".getBytes(StandardCharsets.UTF_8)).withIdempotencyKey("key-<b>1</b>")).id();
        try (Connection c = dataSource.getConnection(); PreparedStatement st = c.prepareStatement("UPDATE outbox SET "
                + "status = 'DEAD_LETTERED', attempt_count = 3, last_error = ?, dead_letter_reason = ? WHERE id = ?")) {
            st.setString(1, "HTTP 400: <script>alert(1)</script>");
            st.setString(2, "permanent: refused");
            st.setLong(3, deadLetter);
            st.executeUpdate();
        }
        sampler = ConsoleSampler.start(dataSource, table, Duration.ofHours(1), 10);
        console = new Console(dataSource, sampler);
        sampler.sampleNow();
    }

    @AfterEach
    void stop() {
        sampler.close();
    }

    private ConsoleResponse get(String path) {
        return console.handle(new ConsoleRequest("GET", "/leasebox", path, Map.of(), Map.of(), HOST, Optional.empty(),
                Optional.empty()));
    }

    private ConsoleResponse post(String path, Map<String, String> form, String origin) {
        return console.handle(new ConsoleRequest("POST", "/leasebox", path, Map.of(), form, HOST, Optional.of(origin),
                Optional.empty()));
    }

    @Test
    void thePageEscapesWhatTheTableHolds() {
        ConsoleResponse page = get("/");
        assertThat(page.status()).isEqualTo(200);
        assertThat(page.body()).contains("HTTP 400: &lt;script&gt;alert(1)&lt;/script&gt;").doesNotContain("<script>alert")
                .contains("key-&lt;b&gt;1&lt;/b&gt;").contains("id=\"dl-" + deadLetter + "\"")
                .contains("id=\"dead-letter-count\">1<");
        assertThat(get("/live").body()).doesNotContain("<html").contains("id=\"backlog\">0<");
    }

    @Test
    void claimsTakenOverShowTheTablesCountWithoutTheWorkersAndTheWorkersCountWhenGivenIt() throws Exception {
        assertThat(get("/live").body()).contains("id=\"taken-over\">0<").contains(">claims taken over<")
                .contains("the table's count");
        addTakeoversToTheTable(1_234); // as workers do in their registry heartbeat (V8)
        sampler.sampleNow();
        assertThat(get("/live").body()).contains("id=\"taken-over\">1,234<").contains("&#9632;</span> taken over")
                .contains("(top of the chart: 1,234)");

        long[] counted = {0};
        sampler.takeoversFrom(() -> counted[0]);
        sampler.sampleNow();
        counted[0] = 56;
        sampler.sampleNow();
        assertThat(get("/live").body()).contains("id=\"taken-over\">56<").contains("the workers' own count");
    }

    @Test
    void aTableWithoutV8ShowsNoCountAndNamesTheMeter() {
        TableName v7 = TableName.parse("outbox_v7");
        new LeaseboxSchema(DatabaseKind.H2, v7).apply(dataSource, 1, 7);
        try (ConsoleSampler older = ConsoleSampler.start(dataSource, v7, Duration.ofHours(1), 10)) {
            older.sampleNow();
            ConsoleResponse live = new Console(dataSource, older).handle(new ConsoleRequest("GET", "/leasebox", "/live",
                    Map.of(), Map.of(), HOST, Optional.empty(), Optional.empty()));
            assertThat(live.body()).contains("id=\"taken-over\">n/a<").contains("claims taken over: see the workers&#39; "
                    + "metrics, or apply V8").contains("leasebox_claims_total");
        }
    }

    private void addTakeoversToTheTable(long count) throws Exception {
        try (Connection c = dataSource.getConnection(); PreparedStatement st = c.prepareStatement(
                "UPDATE outbox_claim_styles SET taken_over = taken_over + ? WHERE owner = ''")) {
            st.setLong(1, count);
            st.executeUpdate();
        }
    }

    @Test
    void routesAnswerWithTheirMethodAndTheMountPoint() {
        assertThat(get("").status()).isEqualTo(303);
        assertThat(get("").headers()).containsEntry("Location", "/leasebox/");
        assertThat(get("/nothing").status()).isEqualTo(404);
        assertThat(get("/redrive").status()).isEqualTo(405);
        assertThat(get("/redrive").headers()).containsEntry("Allow", "POST");
        assertThat(post("/", Map.of(), "http://" + HOST).status()).isEqualTo(405);
    }

    @Test
    void aRedriveIsConfirmedFirstAndNeedsTheTokenAndTheOrigin() {
        String token = console.token();
        String origin = "http://" + HOST;
        assertThat(post("/redrive", Map.of("target", "x1", "token", token), origin).status()).isEqualTo(400);
        ConsoleResponse confirm = post("/redrive", Map.of("target", String.valueOf(deadLetter), "token", token), origin);
        assertThat(confirm.body()).contains("Redrive dead letter #" + deadLetter + "?").contains("1 entry goes back");
        assertThat(sampler.latest().orElseThrow().count("DEAD_LETTERED")).isEqualTo(1);

        assertThat(post("/redrive-confirm", Map.of("target", "all", "token", token), "http://127.0.0.1:9999").status())
                .isEqualTo(403);
        assertThat(post("/redrive-confirm", Map.of("target", "all", "token", "0".repeat(32)), origin).status()).isEqualTo(403);
        ConsoleResponse done = post("/redrive-confirm", Map.of("target", "all", "token", token), origin);
        assertThat(done.status()).isEqualTo(303);
        assertThat(done.headers()).containsEntry("Location", "/leasebox/?redriven=1&held=0");
        assertThat(sampler.latest().orElseThrow().count("PENDING")).as("sampled again after the redrive").isEqualTo(1);
        assertThat(post("/redrive", Map.of("target", "all", "token", token), origin).body()).contains("Nothing to redrive");
    }
}
