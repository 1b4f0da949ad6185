package dev.leasebox.cli;

import com.zaxxer.hikari.HikariDataSource;
import dev.leasebox.console.Console;
import dev.leasebox.console.ConsoleHttpServer;
import dev.leasebox.console.ConsoleSampler;
import dev.leasebox.jdbc.store.JdbcOutboxStore;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.UncheckedIOException;
import java.net.BindException;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

/** The operator's page on http://BIND:PORT/, until interrupted: {@link Console} on the JDK's HTTP server. */
@Command(name = "console", mixinStandardHelpOptions = true,
        description = {"Serve the operator's page: backlog by status and its trend, oldest pending age, throughput, "
                + "claims by owner and slots by holder, lease losses and reclaims, recent dead letters and redrive "
                + "(asked to confirm).",
                "It reads the table every --sample-every and keeps the samples in memory, so its charts start when it "
                        + "does. It has no login: it binds 127.0.0.1 unless --bind says otherwise."})
final class ConsoleCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Mixin
    DatabaseOptions database;

    @Option(names = "--port", paramLabel = "PORT", defaultValue = "8089",
            description = "Serve the page on this port (default: ${DEFAULT-VALUE}; 0 picks a free one).")
    int port;

    @Option(names = "--bind", paramLabel = "HOST", defaultValue = "127.0.0.1",
            description = "Interface to serve on (default: ${DEFAULT-VALUE}); anyone who reaches it can redrive.")
    String bind;

    @Option(names = "--sample-every", paramLabel = "INTERVAL", defaultValue = "2s", converter = DurationConverter.class,
            description = "Read the table this often (default: ${DEFAULT-VALUE}); the page refreshes as often.")
    Duration sampleEvery;

    @Option(names = "--keep", paramLabel = "N", defaultValue = "900",
            description = "Samples kept for the charts (default: ${DEFAULT-VALUE}, half an hour at 2s).")
    int keep;

    /** Counted down to stop serving (tests); Ctrl-C ends the process instead. */
    final CountDownLatch stop = new CountDownLatch(1);

    @Override
    public Integer call() throws InterruptedException {
        CliErrors.requireBetween("--port", port, 0, 65535);
        CliErrors.requireBetween("--keep", keep, 2, 1_000_000);
        if (sampleEvery.compareTo(Duration.ofMillis(100)) < 0) {
            throw new IllegalArgumentException("--sample-every " + DurationConverter.format(sampleEvery)
                    + " is too short: use at least 100ms, e.g. --sample-every 2s");
        }
        database.poolSize = 2;
        try (HikariDataSource dataSource = database.open()) {
            // the store's start-up check: a missing table or claim columns give one line naming the script
            JdbcOutboxStore.builder(dataSource).table(database.tableName()).open();
            try (ConsoleSampler sampler = ConsoleSampler.start(dataSource, database.tableName(), sampleEvery, keep);
                 ConsoleHttpServer server = serve(new Console(dataSource, sampler))) {
                spec.commandLine().getOut().println("Leasebox console for " + database.tableName() + " on http://"
                        + (bind.contains(":") ? "[" + bind + "]" : bind) + ":" + server.port() + "/ (Ctrl-C to stop)");
                spec.commandLine().getOut().flush();
                stop.await();
            }
        }
        return CliErrors.EXIT_OK;
    }

    private ConsoleHttpServer serve(Console console) {
        try {
            return ConsoleHttpServer.start(console, bind, port);
        } catch (UncheckedIOException | IllegalArgumentException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            String message = cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage();
            if (cause instanceof BindException && message.contains("in use")) {
                throw new IllegalArgumentException("--port " + port + ": " + bind + ":" + port
                        + " is in use; choose another --port (0 picks a free one)", e);
            }
            throw new IllegalArgumentException("--bind " + bind + ": cannot serve on " + bind + ":" + port + " (" + message
                    + "); give an address of this host, e.g. --bind 127.0.0.1", e);
        }
    }
}
