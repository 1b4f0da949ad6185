package dev.leasebox.cli;

import com.zaxxer.hikari.HikariDataSource;
import dev.leasebox.jdbc.PostgreSqlTestServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code leasebox console} against a real PostgreSQL: it serves the page on the port it prints and stops
 * cleanly; a port in use or out of range, and an address not of this host, are one line naming the flag.
 * The page itself is tested in a browser by leasebox-console's ConsoleIT.
 */
class ConsoleCommandIT {

    private HikariDataSource admin;
    private String schema;
    private String url;

    @BeforeEach
    void outboxTable() {
        admin = PostgreSqlTestServer.dataSource(1);
        schema = PostgreSqlTestServer.newSchema(admin);
        url = PostgreSqlTestServer.jdbcUrlFor(schema);
        assertThat(CliRun.of("schema", "--jdbc-url", url, "--apply").exitCode()).isZero();
    }

    @AfterEach
    void dropSchema() {
        PostgreSqlTestServer.dropSchema(admin, schema);
        admin.close();
    }

    @Test
    void servesThePageOnThePortItPrintsUntilStopped() throws Exception {
        CommandLine commandLine = LeaseboxMain.commandLine();
        commandLine.setDefaultValueProvider(new EnvironmentDefaults(java.util.Map.of(), Optional.empty()));
        StringWriter out = new StringWriter();
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(new StringWriter(), true));
        CompletableFuture<Integer> exit = CompletableFuture.supplyAsync(() -> commandLine.execute("console", "--jdbc-url", url,
                "--port", "0", "--sample-every", "200ms"));
        Pattern served = Pattern.compile("Leasebox console for leasebox_outbox on http://127\\.0\\.0\\.1:(\\d+)/ \\(Ctrl-C to stop\\)");
        await().atMost(Duration.ofSeconds(20)).until(() -> served.matcher(out.toString()).find() || exit.isDone());
        Matcher m = served.matcher(out.toString());
        assertThat(m.find()).as("printed: %s, exit %s", out, exit.isDone() ? exit.join() : "-").isTrue();

        HttpClient http = HttpClient.newHttpClient();
        HttpResponse<String> page = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + m.group(1) + "/")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.body()).contains("<title>Leasebox console: leasebox_outbox</title>").contains("id=\"live\"");

        ConsoleCommand command = commandLine.getSubcommands().get("console").getCommand();
        command.stop.countDown();
        assertThat(exit.get(20, java.util.concurrent.TimeUnit.SECONDS)).isZero();
    }

    @Test
    void aPortInUseNamesPortAndSaysWhatToDo() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            CliRun run = CliRun.of("console", "--jdbc-url", url, "--port", String.valueOf(taken.getLocalPort()));
            assertThat(run.exitCode()).isEqualTo(2);
            assertThat(run.err()).contains("leasebox console: --port " + taken.getLocalPort() + ": 127.0.0.1:"
                    + taken.getLocalPort() + " is in use; choose another --port (0 picks a free one)");
            assertThat(run.errLines()).isEqualTo(1);
        }
    }

    @Test
    void aPortOutOfRangeOrAForeignAddressIsOneLine() {
        CliRun range = CliRun.of("console", "--jdbc-url", url, "--port", "70000");
        assertThat(range.exitCode()).isEqualTo(2);
        assertThat(range.err()).contains("--port must be in 0..65535, was 70000");
        CliRun foreign = CliRun.of("console", "--jdbc-url", url, "--port", "0", "--bind", "192.0.2.1");
        assertThat(foreign.exitCode()).isEqualTo(2);
        assertThat(foreign.err()).contains("--bind 192.0.2.1: cannot serve on 192.0.2.1:0").contains("--bind 127.0.0.1");
        assertThat(foreign.errLines()).isEqualTo(1);
    }
}
