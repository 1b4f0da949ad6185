package dev.leasebox.cli;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;

/**
 * Serves a Prometheus registry's scrape on {@code http://HOST:PORT/metrics}, and the probes a worker
 * adds ({@code /health}, {@code /ready}): 200 and {@code ok}, or 503 and the one-line reason.
 */
public final class PrometheusEndpoint implements AutoCloseable {

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final HttpServer server;
    private final ExecutorService handlers = Executors.newFixedThreadPool(2, r -> {
        Thread t = new Thread(r, "leasebox-http");
        t.setDaemon(true);
        return t;
    });

    public PrometheusEndpoint(String host, int port) {
        try {
            server = HttpServer.create(new InetSocketAddress(host, port), 0);
        } catch (IOException e) {
            handlers.shutdownNow();
            throw new UncheckedIOException("cannot serve metrics on " + host + ":" + port + ": " + e.getMessage()
                    + " (is the port taken? choose another --metrics-port)", e);
        }
        server.createContext("/metrics", exchange -> respond(exchange, 200, "text/plain; version=0.0.4; charset=utf-8",
                registry.scrape()));
        // a slow probe (a database that does not answer) must not hold up a scrape
        server.setExecutor(handlers);
        server.start();
    }

    /**
     * Serves {@code path}: 200 {@code ok} while {@code problem} is empty, else 503 and its text. The
     * supplier runs on each request.
     */
    public void probe(String path, Supplier<Optional<String>> problem) {
        server.createContext(path, exchange -> {
            Optional<String> why;
            try {
                why = problem.get();
            } catch (RuntimeException e) {
                why = Optional.of(CliErrors.oneLine(e));
            }
            respond(exchange, why.isEmpty() ? 200 : 503, "text/plain; charset=utf-8", why.orElse("ok") + "\n");
        });
    }

    private static void respond(HttpExchange exchange, int status, String contentType, String text) throws IOException {
        byte[] body = text.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().add("Content-Type", contentType);
        exchange.sendResponseHeaders(status, body.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
        }
    }

    public PrometheusMeterRegistry registry() {
        return registry;
    }

    public int port() {
        return server.getAddress().getPort();
    }

    @Override
    public void close() {
        server.stop(0);
        handlers.shutdownNow();
        registry.close();
    }
}
