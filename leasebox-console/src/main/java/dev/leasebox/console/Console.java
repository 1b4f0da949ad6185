package dev.leasebox.console;

import dev.leasebox.jdbc.OutboxMaintenance;

import javax.sql.DataSource;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The operator's page as a plain request handler: {@link #handle} takes a {@link ConsoleRequest} and
 * returns a {@link ConsoleResponse}, so that any server can mount it ({@link ConsoleHttpServer} for the
 * CLI, a servlet in the Spring Boot starter).
 *
 * <p>Routes, under the mount point: {@code GET /} the page, {@code GET /live} the part of it that
 * refreshes, {@code POST /redrive} the confirmation page for a redrive, {@code POST /redrive-confirm}
 * the redrive itself. Both POSTs must carry this console's form token and come from the page's own
 * origin (the Origin header, else the Referer, must name the Host the request was sent to), so that
 * another site cannot make an operator's browser redrive. The console has no login: serve it on
 * loopback (the CLI's default) or behind the application's own security.
 */
public final class Console {

    private final ConsoleSampler sampler;
    private final OutboxMaintenance maintenance;
    private final String token;

    public Console(DataSource dataSource, ConsoleSampler sampler) {
        this.sampler = Objects.requireNonNull(sampler, "sampler");
        this.maintenance = OutboxMaintenance.on(dataSource, sampler.table());
        byte[] random = new byte[16];
        new SecureRandom().nextBytes(random);
        this.token = HexFormat.of().formatHex(random);
    }

    public ConsoleResponse handle(ConsoleRequest request) {
        String path = request.path();
        boolean get = request.method().equals("GET") || request.method().equals("HEAD");
        boolean post = request.method().equals("POST");
        return switch (path) {
            case "" -> get ? ConsoleResponse.seeOther(request.base() + "/") : notAllowed("GET");
            case "/" -> get ? ConsoleResponse.html(200, ConsolePage.page(sampler, flash(request.query()), token))
                    : notAllowed("GET");
            case "/live" -> get ? ConsoleResponse.html(200, LiveView.render(sampler, token)) : notAllowed("GET");
            case "/redrive" -> post ? guarded(request, () -> confirmRedrive(request)) : notAllowed("POST");
            case "/redrive-confirm" -> post ? guarded(request, () -> redrive(request)) : notAllowed("POST");
            default -> ConsoleResponse.text(404, "no such page: " + request.base() + path);
        };
    }

    private ConsoleResponse confirmRedrive(ConsoleRequest request) {
        Optional<OutboxMaintenance.Redrive> selection = selection(request.form().get("target"));
        if (selection.isEmpty()) {
            return ConsoleResponse.text(400, "target must be an entry id or 'all', was '" + request.form().get("target") + "'");
        }
        OutboxMaintenance.Plan plan = maintenance.planRedrive(selection.get());
        return ConsoleResponse.html(200, ConsolePage.confirm(sampler.table().qualified(), request.form().get("target"), plan, token));
    }

    private ConsoleResponse redrive(ConsoleRequest request) {
        Optional<OutboxMaintenance.Redrive> selection = selection(request.form().get("target"));
        if (selection.isEmpty()) {
            return ConsoleResponse.text(400, "target must be an entry id or 'all', was '" + request.form().get("target") + "'");
        }
        long planned = maintenance.planRedrive(selection.get()).underLiveClaim();
        long done = maintenance.redrive(selection.get());
        sampler.sampleNow();
        return ConsoleResponse.seeOther(request.base() + "/?redriven=" + done + "&held=" + planned);
    }

    /** An entry id, or {@code all}: every dead letter. */
    static Optional<OutboxMaintenance.Redrive> selection(String target) {
        if ("all".equals(target)) {
            return Optional.of(OutboxMaintenance.Redrive.deadLetters());
        }
        if (target == null || !target.matches("[0-9]{1,18}")) {
            return Optional.empty();
        }
        return Optional.of(OutboxMaintenance.Redrive.deadLetters().ids(List.of(Long.parseLong(target))));
    }

    private static Optional<String> flash(Map<String, String> query) {
        String redriven = query.get("redriven");
        if (redriven == null || !redriven.matches("[0-9]{1,18}")) {
            return Optional.empty();
        }
        long n = Long.parseLong(redriven);
        String held = query.getOrDefault("held", "0");
        String heldText = held.matches("[1-9][0-9]{0,17}") ? "; " + held + " under a live claim left alone" : "";
        return Optional.of("Redrove " + n + (n == 1 ? " entry" : " entries") + " to PENDING" + heldText + ".");
    }

    private ConsoleResponse guarded(ConsoleRequest request, java.util.function.Supplier<ConsoleResponse> action) {
        Optional<String> refusal = refusal(request);
        return refusal.isPresent() ? ConsoleResponse.text(403, refusal.get()) : action.get();
    }

    /** Why a POST is refused: a missing or wrong form token, or an origin other than the page's own. */
    Optional<String> refusal(ConsoleRequest request) {
        String presented = request.form().getOrDefault("token", "");
        if (!MessageDigest.isEqual(presented.getBytes(StandardCharsets.UTF_8), token.getBytes(StandardCharsets.UTF_8))) {
            return Optional.of("refused: the form token is missing or stale; reload the console page and try again");
        }
        Optional<String> source = request.origin().or(request::referer);
        if (source.isEmpty()) {
            return Optional.of("refused: the request names no Origin or Referer; send it from the console page");
        }
        String authority;
        try {
            authority = URI.create(source.get()).getRawAuthority();
        } catch (IllegalArgumentException e) {
            authority = null;
        }
        if (authority == null || !authority.equalsIgnoreCase(request.host())) {
            return Optional.of("refused: the request comes from " + source.get() + ", not from this console (" + request.host() + ")");
        }
        return Optional.empty();
    }

    private static ConsoleResponse notAllowed(String allowed) {
        return new ConsoleResponse(405, "text/plain; charset=utf-8", "use " + allowed + "\n", Map.of("Allow", allowed));
    }

    /** The form token every POST must carry. */
    String token() {
        return token;
    }
}
