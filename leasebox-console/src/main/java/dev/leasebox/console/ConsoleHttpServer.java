package dev.leasebox.console;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/** Serves a {@link Console} at the root of the JDK's own HTTP server: what {@code leasebox console} runs. */
public final class ConsoleHttpServer implements AutoCloseable {

    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(ConsoleHttpServer.class);

    /** Form bodies beyond this are refused: the console's forms carry two short fields. */
    private static final int MAX_FORM_BYTES = 16 * 1024;

    private final HttpServer server;
    private final ExecutorService handlers = Executors.newFixedThreadPool(2, r -> {
        Thread t = new Thread(r, "leasebox-console-http");
        t.setDaemon(true);
        return t;
    });

    private ConsoleHttpServer(HttpServer server, Console console) {
        this.server = server;
        server.createContext("/", exchange -> serve(console, exchange));
        server.setExecutor(handlers);
        server.start();
    }

    /**
     * Binds {@code host:port} (0 for any free port) and serves {@code console} there.
     *
     * @throws UncheckedIOException when the address cannot be bound (the port is taken, the host is not local)
     */
    public static ConsoleHttpServer start(Console console, String host, int port) {
        try {
            return new ConsoleHttpServer(HttpServer.create(new InetSocketAddress(host, port), 0), console);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot serve on " + host + ":" + port + ": " + e.getMessage(), e);
        }
    }

    private static void serve(Console console, HttpExchange exchange) throws IOException {
        try (exchange) {
            ConsoleResponse response;
            try {
                byte[] body = exchange.getRequestBody().readNBytes(MAX_FORM_BYTES + 1);
                response = body.length > MAX_FORM_BYTES ? ConsoleResponse.text(413, "the form is too large")
                        : console.handle(request(exchange, new String(body, StandardCharsets.UTF_8)));
            } catch (RuntimeException e) {
                log.warn("leasebox console: {} {} failed", exchange.getRequestMethod(), exchange.getRequestURI(), e);
                response = ConsoleResponse.text(500, "failed: " + e.getMessage());
            }
            byte[] bytes = response.bodyBytes();
            exchange.getResponseHeaders().add("Content-Type", response.contentType());
            response.headers().forEach((name, value) -> exchange.getResponseHeaders().add(name, value));
            boolean head = exchange.getRequestMethod().equals("HEAD");
            exchange.sendResponseHeaders(response.status(), head ? -1 : bytes.length);
            if (!head) {
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(bytes);
                }
            }
        }
    }

    private static ConsoleRequest request(HttpExchange exchange, String body) {
        URI uri = exchange.getRequestURI();
        String contentType = Optional.ofNullable(exchange.getRequestHeaders().getFirst("Content-Type")).orElse("");
        Map<String, String> form = contentType.startsWith("application/x-www-form-urlencoded")
                ? ConsoleRequest.parameters(body) : Map.of();
        return new ConsoleRequest(exchange.getRequestMethod(), "", uri.getRawPath(), ConsoleRequest.parameters(uri.getRawQuery()),
                form,
                exchange.getRequestHeaders().getFirst("Host"),
                Optional.ofNullable(exchange.getRequestHeaders().getFirst("Origin")),
                Optional.ofNullable(exchange.getRequestHeaders().getFirst("Referer")));
    }

    public int port() {
        return server.getAddress().getPort();
    }

    @Override
    public void close() {
        server.stop(0);
        handlers.shutdownNow();
    }
}
